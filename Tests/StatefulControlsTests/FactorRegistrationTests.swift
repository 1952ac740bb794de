import Foundation
import Testing
@testable import StatefulControls

/// A `@StateFactor` Bool registered by its projection (`register(on, for: $isOn)`) pushes its
/// state: no evaluation reads the property. `register(_:whenever:)` reads it on every
/// evaluation, as its name says.
@MainActor
@Suite("Control: a factor registered by its projection pushes its state")
struct FactorRegistrationTests {
    static let on = try! ControlState.allocate(named: "com.example.tests.factor.on", in: .extendedApplication)
    static let off = try! ControlState.allocate(named: "com.example.tests.factor.off", in: .extendedApplication)

    class Lamp: Control {
        @StateFactor var isOn = false
    }

    /// Counts the reads of the factor's property: its getter is overridden.
    final class CountingLamp: Lamp {
        var reads = 0
        override var isOn: Bool {
            get {
                reads += 1
                return super.isOn
            }
            set { super.isOn = newValue }
        }
    }

    final class Label { var text = "off" }

    @Test(arguments: [false, true])
    func theProjectionPushesAndNoEvaluationReadsTheProperty(inverted: Bool) {
        let lamp = CountingLamp()
        let label = Label()
        lamp.register(Self.on, for: lamp.$isOn, inverted: inverted)
        lamp.setValue("on", for: \.text, of: label, when: .containing(Self.on))
        #expect(lamp.registeredStates.derived.isEmpty, "nothing to evaluate")
        for value in [true, false, true, true, false] {
            lamp.isOn = value
            lamp.isSelected.toggle()  // a re-evaluation of the state
            lamp.updateState()
            #expect(lamp.state.contains(Self.on) == (value != inverted))
            #expect(label.text == (value != inverted ? "on" : "off"))
        }
        #expect(lamp.reads == 0, "the property was read \(lamp.reads) times")
    }

    @Test func wheneverReadsThePropertyOnEveryEvaluation() {
        let lamp = CountingLamp()
        lamp.register(Self.on, whenever: \.isOn)
        #expect(lamp.registeredStates.derived.map(\.state) == [Self.on])
        let before = lamp.reads
        lamp.isOn = true
        lamp.updateState()
        #expect(lamp.state.contains(Self.on))
        #expect(lamp.reads > before, "read on every evaluation")
    }

    /// The projection and the storage are one registration: each pushes, and a factor pushes
    /// one state while true and one while false, whichever spelling registered it.
    @Test func theProjectionAndTheStorageRegisterTheSameWay() {
        final class Switch: Control {
            @StateFactor var isOn = false
            init(on: ControlState, off: ControlState) {
                super.init()
                register(on, for: $isOn)
                register(off, for: \._isOn, inverted: true)
            }
        }
        let control = Switch(on: Self.on, off: Self.off)
        #expect(control.registeredStates.derived.isEmpty && control.state == Self.off)
        control.isOn = true
        #expect(control.state == Self.on && control.registeredStates.pushed == Self.on)
        #expect(control.registeredStates.all.map(\.source) == ["\\Switch._isOn", "\\Switch._isOn (inverted)"])
    }

    /// A subclass's instance registers the factor it inherits, from outside the class.
    @Test func anInheritedFactorFromOutside() {
        final class Spotlight: Lamp {}
        let control = Spotlight()
        control.register(Self.on, for: control.$isOn, named: "isOn")
        control.isOn = true
        #expect(control.state == Self.on && control.registeredStates.derived.isEmpty)
    }

    @Test func anotherControlsFactorStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            await MainActor.run {
                let on = ControlState(rawValue: 1 << 16)
                let first = FactorRegistrationTests.Lamp(), second = FactorRegistrationTests.Lamp()
                second.register(on, for: first.$isOn, named: "first's isOn")
            }
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(
            stderr.contains(
                "Lamp.register: the factor first's isOn is another control's (a Lamp); a factor pushes the states of its own control: register them there"
            ))
    }
}
