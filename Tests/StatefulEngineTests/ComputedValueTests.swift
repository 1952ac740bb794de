import Testing

@testable import StatefulEngine

/// A value computed by a closure of the state (`setValue(for:of:priority:_:)`): called once per
/// distinct state, its results kept; replaced on rebind; one rule in `explain`.
@Suite("StateResolver: values computed from the state")
struct ComputedValueTests {
    final class Target {
        var tint = "none"
        var size = 0
    }

    /// A closure that counts its calls per state.
    final class Counting {
        var calls: [ControlState: Int] = [:]
        func tint(_ state: ControlState) -> String {
            calls[state, default: 0] += 1
            return state.contains(.disabled) ? "grey" : state.contains(.selected) ? "blue" : "plain"
        }
    }

    @Test func theClosureIsCalledOncePerDistinctState() throws {
        let resolver = StateResolver(), target = Target(), counting = Counting()
        try resolver.setValue(for: \.tint, of: target, counting.tint)
        #expect(target.tint == "plain" && counting.calls == [.normal: 1])
        for state: ControlState in [.selected, .normal, .selected, [.selected, .disabled], .normal, [.selected, .disabled]] {
            try resolver.apply(state)
            #expect(target.tint == counting.tint(state))
            counting.calls[state]! -= 1  // the check's own call
        }
        #expect(counting.calls == [.normal: 1, .selected: 1, [.selected, .disabled]: 1])
        #expect(resolver.value(for: \.tint, of: target, in: .selected) == "blue")
    }

    @Test func aRebindReplacesTheClosureAndForgetsItsResults() throws {
        let resolver = StateResolver(), target = Target()
        try resolver.setValue(for: \.size, of: target) { $0.contains(.selected) ? 2 : 1 }
        try resolver.apply(.selected)
        #expect(target.size == 2)
        var calls = 0
        try resolver.setValue(for: \.size, of: target) { state in
            calls += 1
            return state.contains(.selected) ? 20 : 10
        }
        #expect(target.size == 20 && calls == 1)
        try resolver.apply(.normal)
        #expect(target.size == 10 && calls == 2)
        #expect(resolver.ruleCount == 2)  // the new closure's two states; the old one's are gone
    }

    @Test func itCompetesWithBoundValuesByPriority() throws {
        let resolver = StateResolver(), target = Target()
        try resolver.setValue(for: \.tint, of: target, priority: .high) { _ in "computed" }
        try resolver.setValue("bound", for: \.tint, of: target, when: .containing(.focused, priority: .high + 1))
        try resolver.apply(.focused)
        #expect(target.tint == "bound")
        try resolver.apply(.normal)
        #expect(target.tint == "computed")
    }

    @Test func explainShowsTheClosureAsOneRule() throws {
        let resolver = StateResolver(), target = Target(), counting = Counting()
        try resolver.setValue(for: \.tint, of: target, counting.tint)
        for state: ControlState in [.selected, .disabled, .normal] { try resolver.apply(state) }
        try resolver.setValue("focused", for: \.tint, of: target, when: .containing(.focused, priority: .required + 1))
        let explanation = resolver.explain(\.tint, of: target, in: .selected)
        #expect(
            explanation.candidates.map(\.descriptor.description) == [
                "containing(focused) @1001", "custom(\"(state) -> value\") @1000",
            ])
        #expect(explanation.value == "blue")
        // A state not computed yet is explained with the closure's value for it.
        #expect(resolver.explain(\.tint, of: target, in: [.selected, .highlighted]).value == "blue")
    }

    @Test func removingTheValuesEndsTheClosure() throws {
        let resolver = StateResolver(), target = Target()
        var calls = 0
        try resolver.setValue(for: \.size, of: target) { _ in
            calls += 1
            return 5
        }
        resolver.removeValues(for: \.size, of: target)
        #expect(target.size == 0)
        try resolver.apply(.selected)
        #expect(calls == 1 && target.size == 0 && resolver.computed.records.isEmpty)
    }

    /// The closure's rules are one per state, each matching only its state: lint finds nothing
    /// in them, even where the closure gives the default.
    @Test func lintFindsNothingInTheClosuresRules() throws {
        let resolver = StateResolver(), target = Target()
        try resolver.setValue(for: \.size, of: target) { $0.contains(.selected) ? 1 : 0 }
        let states: [ControlState] = [.normal, .selected, .highlighted, [.selected, .highlighted]]
        for state in states { try resolver.apply(state) }
        #expect(try resolver.lintRules(reachableStates: states).isEmpty)
    }

    /// The closure runs while the resolver applies, and may call back as a setter may.
    @Test func theClosureMayBindValues() throws {
        let resolver = StateResolver(), target = Target()
        // The resolver keeps the closure: the closure keeps the resolver unowned, or both leak.
        try resolver.setValue(for: \.tint, of: target) { [unowned resolver] state in
            if state.contains(.selected) { try? resolver.setValue(7, for: \.size, of: target, when: .containing(.selected)) }
            return state.contains(.selected) ? "on" : "off"
        }
        try resolver.apply(.selected)
        #expect(target.tint == "on" && target.size == 7)
    }
}
