import Testing

@testable import StatefulEngine

/// Reusable ordered lists of values by state (`StateValues`) and named priorities.
@Suite("StateValues: ordered lists of values by state")
@MainActor
struct StateValuesTests {
    final class Target {
        var title = "none"
        var count = 0
    }

    static let titles: StateValues<String> = [
        .containing(.disabled): "off",
        .containing(.selected): "on",
        .containingAny([.highlighted, .focused]): "hot",
        .always: "idle",
    ]

    @Test func theFirstEntryThatMatchesWins() throws {
        let resolver = StateResolver(), target = Target()
        try resolver.setValues(Self.titles, for: \.title, of: target)
        let states: [ControlState] = [.normal, .selected, [.selected, .disabled], [.selected, .highlighted], .focused, .disabled]
        for state in states {
            try resolver.apply(state)
            #expect(target.title == Self.titles.value(for: state), "\(state)")
        }
        #expect(Self.titles.value(for: [.selected, .highlighted]) == "on")
        #expect(Self.titles.value(for: [.disabled, .focused]) == "off")
        #expect(Self.titles.entries.map(\.descriptor.priority) == [1000, 999, 998, 997])
    }

    @Test func anEntryWithAPriorityKeepsIt() throws {
        let list = StateValues<String> {
            (.containing(.selected), "on")
            (.containing(.focused, priority: .required + 1), "focused")
            (.always, "idle")
        }
        #expect(list.entries.map(\.descriptor.priority) == [1000, 1001, 998])
        let resolver = StateResolver(), target = Target()
        try resolver.setValues(list, for: \.title, of: target)
        try resolver.apply([.selected, .focused])
        #expect(target.title == "focused" && list.value(for: [.selected, .focused]) == "focused")
        // A value bound one by one competes with the list's by priority.
        try resolver.setValue("forced", for: \.title, of: target, when: .containing(.selected, priority: .required + 10))
        #expect(target.title == "forced")
        try resolver.apply(.normal)
        #expect(target.title == "idle")
    }

    @Test func theBuilderTakesConditionsAndLoops() throws {
        func list(verbose: Bool) -> StateValues<Int> {
            StateValues {
                if verbose { (.containing(.focused), 9) }
                for (index, state) in [ControlState.selected, .highlighted].enumerated() { (.containing(state), index + 1) }
                (.always, 0)
            }
        }
        #expect(list(verbose: true).entries.map(\.value) == [9, 1, 2, 0])
        #expect(list(verbose: false).entries.map(\.value) == [1, 2, 0])
        let resolver = StateResolver(), target = Target()
        try resolver.setValues(list(verbose: false), for: \.count, of: target)
        try resolver.apply([.selected, .highlighted])
        #expect(target.count == 1)
    }

    @Test func noMatchLeavesTheDefault() throws {
        let list: StateValues<Int> = [.containing(.selected): 5]
        let resolver = StateResolver(), target = Target()
        target.count = 3
        try resolver.setValues(list, for: \.count, of: target)
        try resolver.apply(.selected)
        #expect(target.count == 5)
        try resolver.apply(.normal)
        #expect(target.count == 3 && list.value(for: .normal) == nil)
    }

    /// Values whose bits differ between two copies (a heap string is a reference) are shared only
    /// when they are the list's own: resolvers binding one list share one table by construction.
    @Test func resolversThatBindOneListShareOneTable() throws {
        let text = String(repeating: "long enough to live on the heap ", count: 3)
        let list: StateValues<String> = [.containing(.selected): text, .always: text + "!"]
        let (first, second) = (StateResolver(sharingRules: true), StateResolver(sharingRules: true))
        let (a, b) = (Target(), Target())
        try first.setValues(list, for: \.title, of: a)
        try second.setValues(list, for: \.title, of: b)
        #expect(first.rules === second.rules)
        try second.apply(.selected)
        #expect(a.title == text + "!" && b.title == text)
    }

    @Test func namedPriorities() {
        #expect(StatePriority.low < .default && StatePriority.default < .high && StatePriority.high < .required)
        #expect((StatePriority.high + 1).rawValue == 751 && (StatePriority.required - 1).rawValue == 999)
        #expect("\(StatePriority.high) \(StatePriority.high + 1)" == "high 751")
        // The modes' defaults are points of the scale.
        #expect(StateDescriptor.exactly(.selected).priority == StatePriority.required.rawValue)
        #expect(StateDescriptor.notContaining(.selected).priority == StatePriority.high.rawValue)
        #expect(StateDescriptor.containingAny(.selected).priority == StatePriority.default.rawValue)
        // An Int32 variable still names a priority, as the seeds wrote it.
        let priority: Int32 = 42
        #expect(StateDescriptor.containing(.selected, priority: priority) == .containing(.selected, priority: 42))
        #expect(StateDescriptor.containing(.selected, priority: .low).priority == 250)
    }
}
