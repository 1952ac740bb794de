// The components' states and events come from the ranges UIKit keeps for the framework
// (states 0xFF000000, events 0xF0000000): every application bit stays the app's.
extension ControlState {
    /// Every digit of a PIN code is entered: `0x02000000`, named `org.statefulcontrols.filled`
    /// (reserved range).
    public static let filled = ControlState.reserved(ControlState(rawValue: 1 << 25), named: "org.statefulcontrols.filled")
    /// The entered PIN code is complete and accepted by the validator: `0x04000000`, named
    /// `org.statefulcontrols.valid` (reserved range).
    public static let valid = ControlState.reserved(ControlState(rawValue: 1 << 26), named: "org.statefulcontrols.valid")
    /// The entered PIN code is complete and rejected by the validator: `0x08000000`, named
    /// `org.statefulcontrols.invalid` (reserved range).
    public static let invalid = ControlState.reserved(ControlState(rawValue: 1 << 27), named: "org.statefulcontrols.invalid")
}

extension ControlEvents {
    /// A PIN code control became filled: allocated as `org.statefulcontrols.typeComplete` in
    /// the framework's range ``systemReserved``, so the whole application range stays the
    /// app's. It is `0x10000000`, the range's first bit, while it is the library's only event.
    public static let typeComplete = ControlEvents.reserved(named: "org.statefulcontrols.typeComplete")
}

/// One dot of a ``PinCodeControl``: a control of its own, selected while its digit is entered,
/// whose appearance is bound to its state.
@MainActor
public final class PinDot: Control {
    /// The PIN code is valid (bound from the PIN control's state).
    @StateFactor public var isValid = false
    /// The PIN code is invalid (bound from the PIN control's state).
    @StateFactor public var isInvalid = false

    /// The fill colour.
    public var fillColor = Color.clear
    /// The border colour.
    public var borderColor = Color.grey
    /// The border width.
    public var borderWidth = 1.0

    /// Creates a dot with the standard appearance per state: three lists of values by state,
    /// which every dot shares.
    public init() {
        super.init(frame: Rect(x: 0, y: 0, width: 16, height: 16))
        register(.valid, in: .reserved, for: \._isValid, named: "isValid")
        register(.invalid, in: .reserved, for: \._isInvalid, named: "isInvalid")
        setValues(Self.fill, for: \.fillColor)
        setValues(Self.border, for: \.borderColor)
        setValues(Self.borderWidths, for: \.borderWidth)
    }

    /// Entered digits are filled; the PIN's verdict and the control's mode colour them.
    static let fill: StateValues<Color> = [
        .containing([.selected, .disabled]): .grey,
        .containing([.selected, .valid]): .green,
        .containing([.selected, .invalid]): .red,
        .containing([.selected, .highlighted]): .blue,
        .containing(.selected): .white,
    ]

    /// The border follows the mode and the verdict, entered or not.
    static let border: StateValues<Color> = [
        .containing(.disabled): .darkGrey,
        .containing(.valid): .green,
        .containing(.invalid): .red,
        .containing(.highlighted): .blue,
    ]

    /// The border is thick while highlighted or rejected, thin while disabled.
    static let borderWidths: StateValues<Double> = [
        .containing(.disabled): 0.5,
        .containingAny([.highlighted, .invalid]): 2.0,
    ]
}

/// A PIN code entry: a fixed number of digits shown as dots, with custom states
/// ``ControlState/filled``, ``ControlState/valid`` and ``ControlState/invalid``, and a
/// ``ControlEvents/typeComplete`` event when the last digit is entered.
///
/// The whole appearance is state-bound: the control drives its dots' states through bound
/// values (highlighted, enabled, valid, invalid), and each dot binds its colours and border
/// width to its own state.
@MainActor
public final class PinCodeControl: Control {
    /// The number of digits.
    public let codeLength: Int

    /// The digits entered so far.
    @StateFactor public private(set) var code = ""

    /// Decides whether a complete code is valid. Changing it re-evaluates the state.
    public var validator: @MainActor (String) -> Bool {
        didSet { updateState() }
    }

    /// The dots, one per digit.
    public let dots: [PinDot]

    /// Creates a PIN control of `codeLength` digits, validated by `validator` (by default
    /// ``isAcceptable(_:)``).
    public init(codeLength: Int = 4, validator: @escaping @MainActor (String) -> Bool = PinCodeControl.isAcceptable) {
        if codeLength < 1 { misuse("PinCodeControl(codeLength: \(codeLength)): a PIN code needs at least one digit") }
        self.codeLength = codeLength
        self.validator = validator
        self.dots = (0..<codeLength).map { _ in PinDot() }
        super.init(frame: Rect(x: 0, y: 0, width: Double(codeLength) * 24, height: 24))
        for dot in dots { addSubview(dot) }
        register(.filled, in: .reserved, named: "code is complete") { $0.code.count == $0.codeLength }
        register(.valid, in: .reserved, named: "complete code accepted by the validator") {
            $0.code.count == $0.codeLength && $0.validator($0.code)
        }
        register(.invalid, in: .reserved, named: "complete code rejected by the validator") {
            $0.code.count == $0.codeLength && !$0.validator($0.code)
        }
        for dot in dots {
            setValue(true, for: \.isHighlighted, of: dot, when: .containingAny([.highlighted, .focused]))
            setValue(false, for: \.isEnabled, of: dot, when: .containing(.disabled))
            setValue(true, for: \.isValid, of: dot, when: .containing(.valid))
            setValue(true, for: \.isInvalid, of: dot, when: .containing(.invalid))
        }
    }

    /// Appends the digits of `text` (other characters are ignored) up to ``codeLength``, in
    /// one transition: then sends ``ControlEvents/valueChanged``, and
    /// ``ControlEvents/typeComplete`` if the code became complete. Ignored while disabled.
    public func insertText(_ text: String) {
        guard isEnabled else { return }
        let digits = text.filter(\.isASCII).filter(\.isNumber).prefix(codeLength - code.count)
        guard !digits.isEmpty else { return }
        edit(code + digits)
    }

    /// Deletes the last digit. Ignored while disabled.
    public func deleteBackward() {
        guard isEnabled, !code.isEmpty else { return }
        edit(String(code.dropLast()))
    }

    /// Deletes every digit in one transition. Ignored while disabled.
    public func clear() {
        guard isEnabled, !code.isEmpty else { return }
        edit("")
    }

    private func edit(_ newCode: String) {
        let wasFilled = state.contains(.filled)
        performTransition {
            code = newCode
            for (index, dot) in dots.enumerated() { dot.isSelected = index < newCode.count }
            sendActions(for: .valueChanged)
            if !wasFilled && newCode.count == codeLength { sendActions(for: .typeComplete) }
        }
    }

    /// The default validator: rejects codes of one repeated digit (1111) and runs of
    /// consecutive digits up or down (1234, 9876); accepts every other complete code.
    public static func isAcceptable(_ code: String) -> Bool {
        let digits = code.compactMap(\.wholeNumberValue)
        guard digits.count > 1 else { return true }
        let steps = Set(zip(digits, digits.dropFirst()).map { $1 - $0 })
        return !(steps == [0] || steps == [1] || steps == [-1])
    }
}
