import Testing
@testable import StatefulControls

/// Custom states read from a Bool by key path (`register(_:whenever:inverted:named:)`): whatever
/// kind of property the Bool is — stored in a final class (read at its offset), stored but
/// overridable, a `final var`, computed, inherited, overridden — the control's state holds the
/// custom state exactly when plain Swift reads the Bool as true (false when inverted), after
/// every change followed by `updateState()`.
@MainActor
@Suite("Control: custom states read by key path")
struct CustomStateKeyPathTests {
    // The test process shares the application bits among all suites: these reuse the names
    // (and so the bits) ControlTests and ModelBasedReentrancyTests allocate; a control
    // registers each at most once.
    static let on = try! ControlState.allocate(named: "com.example.tests.switch.on")
    static let loud = try! ControlState.allocate(named: "com.example.tests.switch.loud")

    final class Label { var text = "default" }

    /// A stored Bool of a final class: read at its offset.
    final class StoredFlag: Control { var isArmed = false }

    /// Stored Bools of a non-final class: an overridable one (read through its getter) and a
    /// final one (at its offset).
    class OpenFlags: Control {
        var isArmed = false
        final var isLocked = false
    }

    /// A computed Bool over a stored value.
    final class ComputedFlag: Control {
        var level = 0
        var isLoud: Bool { level > 5 }
    }

    /// A Bool declared in a superclass, registered on the subclass.
    class ArmedBase: Control { var isArmed = false }
    final class ArmedSubclass: ArmedBase {}

    /// A computed Bool, overridden: the subclass's threshold is lower.
    class Meter: Control {
        var level = 0
        var isHigh: Bool { level > 5 }
    }
    final class SensitiveMeter: Meter {
        override var isHigh: Bool { level > 2 }
    }

    /// After each step (and `updateState()`), the control's state contains `state` exactly
    /// when `read` (plain Swift) is true, xor `inverted`; a value bound to the state follows.
    func drive<Subject: Control>(
        _ control: Subject, _ state: ControlState, inverted: Bool = false,
        _ read: (Subject) -> Bool, steps: [(Subject) -> Void],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let label = Label()
        control.setValue("on", for: \.text, of: label, when: .containing(state))
        func check(_ step: String) {
            let expected = read(control) != inverted
            #expect(
                control.state.contains(state) == expected, "\(step): state \(control.state), Bool \(read(control))",
                sourceLocation: sourceLocation)
            #expect(control.appliedState == control.state, "\(step): applied", sourceLocation: sourceLocation)
            #expect(label.text == (expected ? "on" : "default"), "\(step): bound value", sourceLocation: sourceLocation)
        }
        control.updateState()
        check("after registering")
        for (index, step) in steps.enumerated() {
            step(control)
            control.updateState()
            check("step \(index)")
            // A built-in factor changes nothing of the custom state.
            control.isSelected.toggle()
            check("step \(index), selected toggled")
        }
    }

    /// Bool steps that change, repeat and change back.
    static let flips = [true, false, true, true, false, false, true]

    @Test func aStoredBoolOfAFinalClass() {
        let control = StoredFlag()
        control.register(Self.on, whenever: \.isArmed)
        drive(control, Self.on, { $0.isArmed }, steps: Self.flips.map { value in { $0.isArmed = value } })
    }

    @Test func storedBoolsOfANonFinalClassOverridableAndFinal() {
        let control = OpenFlags()
        control.register(Self.on, whenever: \.isArmed)
        control.register(Self.loud, whenever: \.isLocked)
        let steps: [(OpenFlags) -> Void] = [
            { $0.isArmed = true }, { $0.isLocked = true }, { $0.isArmed = false }, { $0.isLocked = false },
            { $0.isLocked = true }, { $0.isArmed = true },
        ]
        drive(control, Self.on, { $0.isArmed }, steps: steps)
        drive(control, Self.loud, { $0.isLocked }, steps: steps)
    }

    @Test func aComputedBool() {
        let control = ComputedFlag()
        control.register(Self.on, whenever: \.isLoud)
        drive(control, Self.on, { $0.isLoud }, steps: [3, 7, 9, 5, 6, 0, 6].map { level in { $0.level = level } })
    }

    @Test func anInheritedBoolRegisteredOnTheSubclass() {
        let control = ArmedSubclass()
        control.register(Self.on, whenever: \.isArmed)
        drive(control, Self.on, { $0.isArmed }, steps: Self.flips.map { value in { $0.isArmed = value } })
    }

    /// The override is read, whether the key path's root is the subclass or the base class
    /// (levels 3 and 4 tell the two thresholds apart).
    @Test(arguments: [false, true])
    func anOverriddenComputedBool(throughTheBase: Bool) {
        let control = SensitiveMeter()
        if throughTheBase {
            let meter: Meter = control
            meter.register(Self.on, whenever: \.isHigh)  // Self is Meter: \Meter.isHigh
        } else {
            control.register(Self.on, whenever: \.isHigh)
        }
        drive(control, Self.on, { $0.isHigh }, steps: [3, 1, 4, 6, 2, 9, 0].map { level in { $0.level = level } })
        control.level = 4
        control.updateState()
        #expect(control.state.contains(Self.on), "4 is high for the override, not for the base")
    }

    @Test func invertedStoredAndComputedBools() {
        let stored = StoredFlag()
        stored.register(Self.on, whenever: \.isArmed, inverted: true)
        drive(stored, Self.on, inverted: true, { $0.isArmed }, steps: Self.flips.map { value in { $0.isArmed = value } })
        let computed = ComputedFlag()
        computed.register(Self.on, whenever: \.isLoud, inverted: true)
        drive(computed, Self.on, inverted: true, { $0.isLoud }, steps: [3, 7, 9, 5, 6, 0].map { level in { $0.level = level } })
    }

    /// One Bool registered both ways: exactly one of the two states is on.
    @Test func oneBoolRegisteredPlainAndInverted() {
        let control = OpenFlags()
        control.register(Self.on, whenever: \.isArmed)
        control.register(Self.loud, whenever: \.isArmed, inverted: true)
        for value in Self.flips {
            control.isArmed = value
            control.updateState()
            #expect(control.state.contains(Self.on) == value)
            #expect(control.state.contains(Self.loud) == !value)
        }
    }
}
