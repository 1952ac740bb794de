// The form scenario: 100 fields, each field's custom state enabling its button, through the
// library and by hand.

import SeededRandom
import CBenchSupport
import StatefulControls

// MARK: - form: 100 fields, a custom `valid` state enabling each field's button

/// The custom state of the form scenario.
func benchValidState() -> ControlState { BenchStates.all[2] }

/// What the form scenario flips: the field's five factors, and the button it enables.
@MainActor
protocol BenchFormField: AnyObject {
    var isEnabled: Bool { get set }
    var isSelected: Bool { get set }
    var isHighlighted: Bool { get set }
    var isFocused: Bool { get set }
    var isValid: Bool { get set }
    var buttonIsEnabled: Bool { get }
}

/// A field through the library: `valid` pushed by `isValid` (registered by its storage), and the button's isEnabled
/// bound to `.containing(valid)` (the button is a Control, disabled by default).
final class StatefulFormField: Control, BenchFormField {
    @StateFactor var isValid = false
    let button = Control()

    init(valid: ControlState) {
        super.init(frame: .zero)
        button.isEnabled = false
        register(valid, for: \._isValid)
        setValue(true, for: \.isEnabled, of: button, when: .containing(valid))
    }

    var buttonIsEnabled: Bool { button.isEnabled }
}

/// The hand-written field's button.
final class HandFormButton: View {
    var isEnabled = false
}

/// A field by hand: `didSet` on `isValid` writes the button's `isEnabled`; the other factors
/// affect nothing here.
final class HandFormField: View, BenchFormField {
    var isEnabled = true
    var isSelected = false
    var isHighlighted = false
    var isFocused = false
    var isValid = false { didSet { button.isEnabled = isValid } }
    let button = HandFormButton()

    var buttonIsEnabled: Bool { button.isEnabled }
}

/// One step of the form: flip `factor` (0 to 4) of `field`.
@MainActor @inline(__always)
func flipFormFactor<Field: BenchFormField>(_ field: Field, _ factor: Int) {
    switch factor {
    case 0: field.isEnabled.toggle()
    case 1: field.isSelected.toggle()
    case 2: field.isHighlighted.toggle()
    case 3: field.isFocused.toggle()
    default: field.isValid.toggle()
    }
}

/// The form's fields, the seeded sequence of steps, and the fields driven through the
/// sequence twice (so every state pair the sequence meets again was diffed once, and every
/// field is back where it started).
@MainActor
struct Form {
    static let fieldCount = 100
    /// Steps before the sequence repeats; a power of two.
    static let stepCount = 4096

    let controls: [StatefulFormField]
    let hands: [HandFormField]
    /// Each step's field index and factor (0 to 4), packed as field * 8 + factor.
    let steps: [Int]

    init(valid: ControlState, verify: Bool) {
        controls = (0..<Self.fieldCount).map { _ in StatefulFormField(valid: valid) }
        hands = (0..<Self.fieldCount).map { _ in HandFormField() }
        var rng = SplitMix64(seed: 0x464F_524D)
        steps = (0..<Self.stepCount).map { _ in
            Int.random(in: 0..<Self.fieldCount, using: &rng) * 8 + Int.random(in: 0..<5, using: &rng)
        }
        var enablings = 0
        for pass in 0..<2 {
            for (index, step) in steps.enumerated() {
                let field = step >> 3, factor = step & 7
                flipFormFactor(controls[field], factor)
                flipFormFactor(hands[field], factor)
                if verify, controls[field].buttonIsEnabled != hands[field].buttonIsEnabled {
                    fatalError(
                        "form: the implementations disagree at pass \(pass) step \(index) (field \(field), factor \(factor)): Control's button isEnabled=\(controls[field].buttonIsEnabled), hand-written's \(hands[field].buttonIsEnabled)"
                    )
                }
                if factor == 4, controls[field].buttonIsEnabled { enablings += 1 }
            }
        }
        if verify {
            for field in 0..<Self.fieldCount
            where controls[field].buttonIsEnabled != hands[field].buttonIsEnabled
                || controls[field].isValid != hands[field].isValid || controls[field].state.contains(.disabled) == hands[field].isEnabled
            {
                fatalError("form: field \(field) differs after the sequence")
            }
            precondition(enablings > 0, "form: the sequence never enabled a button")
        }
    }

    /// The fraction of steps that flip `isValid` (and so change a button).
    var validFlipFraction: Double { Double(steps.count(where: { $0 & 7 == 4 })) / Double(steps.count) }
}
