/// The state of a control: a set of state bits, with UIKit's `UIControl.State` values.
///
/// A control's state is *computed* from its state factors (`isEnabled`, `isSelected`, …) and
/// never stored. The low bits are the system states; the application range `0x00FF0000` holds
/// UIKit's eight custom states, the extended application range `0xFFFFFFFF00000000` 32 more
/// (see ``ControlState/allocate(named:in:)``); the byte `0xFF000000` is reserved.
///
/// ```swift
/// let state: ControlState = [.selected, .highlighted]
/// state.contains(.selected)   // true
/// print(state)                // "highlighted | selected"
/// ```
public struct ControlState: OptionSet, Hashable, Sendable {
    /// The state bits.
    public let rawValue: UInt

    /// Creates a state from its bits.
    @inlinable
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// No state bit set: enabled, not selected, not highlighted, not focused.
    @inlinable public static var normal: ControlState { [] }

    /// The control is being touched (UIKit `1 << 0`).
    @inlinable public static var highlighted: ControlState { ControlState(rawValue: 1 << 0) }

    /// The control is not enabled (UIKit `1 << 1`).
    @inlinable public static var disabled: ControlState { ControlState(rawValue: 1 << 1) }

    /// The control is selected (UIKit `1 << 2`).
    @inlinable public static var selected: ControlState { ControlState(rawValue: 1 << 2) }

    /// The control has the focus (UIKit `1 << 3`).
    @inlinable public static var focused: ControlState { ControlState(rawValue: 1 << 3) }

    /// The range of custom states for applications and libraries (`0x00FF0000`): UIKit's
    /// eight, with UIKit's values.
    @inlinable public static var application: ControlState { ControlState(rawValue: 0x00FF_0000) }

    /// The range of 32 further custom states above UIKit's 32-bit state
    /// (`0xFFFFFFFF00000000`), handed out by ``allocate(named:in:)`` after the eight of
    /// ``application``. Empty where `UInt` has 32 bits.
    @inlinable public static var extendedApplication: ControlState {
        ControlState(rawValue: UInt(truncatingIfNeeded: 0xFFFF_FFFF_0000_0000 as UInt64))
    }

    /// The range reserved for the framework (`0xFF000000`): the states of the library's own
    /// components (`visited`, `filled`, `valid`, `invalid`) live here, never in the app's range.
    @inlinable public static var reserved: ControlState { ControlState(rawValue: 0xFF00_0000) }
}

extension ControlState: CustomStringConvertible {
    private static let systemNames: [(ControlState, String)] = [
        (.highlighted, "highlighted"), (.disabled, "disabled"), (.selected, "selected"), (.focused, "focused"),
    ]

    /// The names of the state's bits joined by `" | "`, or `"normal"` for no bit. Custom states
    /// show the name they were allocated with; other bits show in hexadecimal.
    public var description: String {
        if isEmpty { return "normal" }
        var names: [String] = []
        var rest = self
        for (state, name) in Self.systemNames where contains(state) {
            names.append(name)
            rest.remove(state)
        }
        let custom = CustomStateNames.shared.all
        for bit in rest.bits { names.append(custom[bit] ?? bit.hexadecimal) }
        return names.joined(separator: " | ")
    }
}
