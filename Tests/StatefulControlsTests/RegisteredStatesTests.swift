import Testing
@testable import StatefulControls

/// A control's custom states: registrations in order, the derived ones apart, pushed bits on
/// and off, and the registration a new state would clash with.
@Suite("Control parts: RegisteredStates")
@MainActor
struct RegisteredStatesTests {
    static let a = ControlState(rawValue: 1 << 16), b = ControlState(rawValue: 1 << 17), c = ControlState(rawValue: 1 << 18)

    @Test func registrationsKeepTheirOrderAndTheDerivedOnesAreApart() {
        var states = RegisteredStates()
        states.addDerived(Self.a, source: "a") { _ in true }
        states.addPushed(Self.b, source: "b", isOn: true)
        states.addPushed(Self.c, source: "c", isOn: false)
        #expect(states.all.map(\.state) == [Self.a, Self.b, Self.c])
        #expect(states.all.map(\.source) == ["a", "b", "c"])
        #expect(states.derived.map(\.state) == [Self.a])
        #expect(states.pushed == Self.b)
    }

    @Test func pushingTurnsBitsOnAndOff() {
        var states = RegisteredStates()
        states.addPushed(Self.a, source: "a", isOn: false)
        states.addPushed(Self.b, source: "b", isOn: true)
        states.push(on: Self.a, off: Self.b)
        #expect(states.pushed == Self.a)
        states.push(on: [], off: Self.a)
        #expect(states.pushed.isEmpty)
    }

    @Test func aStateSharingABitWithARegistrationClashesWithIt() {
        var states = RegisteredStates()
        states.addPushed(Self.a, source: "a", isOn: false)
        states.addDerived(Self.b, source: "b") { _ in false }
        #expect(states.registration(overlapping: Self.b.union(Self.c))?.source == "b")
        #expect(states.registration(overlapping: Self.c) == nil)
    }
}
