import SeededRandom
import Testing

@testable import StatefulEngine

/// Resolvers that share their rules (a control's: see `RuleTable`) give every bound property
/// the value a resolver of its own gives it, whatever the others sharing the table do.
///
/// On the main actor, as a control's resolvers are: a shared table is used from one isolation
/// domain.
@MainActor @Suite("StateResolver: rules shared by the resolvers that made the same binds")
struct SharedRulesTests {
    final class Target {
        var title = "t0"
        var count = 0
        var tag = Tag(name: "g0")
        var onTitle: ((String) -> Void)?
        var titleWrites = 0
        var observedTitle = "t0" {
            didSet {
                titleWrites += 1
                onTitle?(observedTitle)
            }
        }
    }

    /// A value that is not even `Equatable`: shared all the same when its bits are the same.
    struct Tag { var name: String }

    static func sharing() -> StateResolver { StateResolver(sharingRules: true) }

    /// Binds what every control of a kind binds: a title when selected, a count when highlighted.
    static func bindKind(_ resolver: StateResolver, _ target: Target, title: String = "T") throws {
        try resolver.setValue(title, for: \.title, of: target, when: .containing(.selected))
        try resolver.setValue(7, for: \.count, of: target, when: .containing(.highlighted, priority: 5))
    }

    @Test func resolversThatMakeTheSameBindsShareOneTable() throws {
        let (first, second, other) = (Self.sharing(), Self.sharing(), Self.sharing())
        let targets = (Target(), Target(), Target())
        try Self.bindKind(first, targets.0)
        try Self.bindKind(second, targets.1)
        try Self.bindKind(other, targets.2, title: "U")
        #expect(first.rules === second.rules)
        #expect(other.rules !== first.rules && other.rules.history != nil)
        try first.apply([.selected, .highlighted])
        try second.apply(.selected)
        #expect((targets.0.title, targets.0.count) == ("T", 7))
        #expect((targets.1.title, targets.1.count) == ("T", 0))
        try second.apply(.highlighted)
        #expect((targets.1.title, targets.1.count) == ("t0", 7))
        #expect(second.value(for: \.title, of: targets.1, in: .selected) == "T")
    }

    @Test func aResolverOfItsOwnNeverShares() throws {
        let (own, sharing) = (StateResolver(), Self.sharing())
        try Self.bindKind(own, Target())
        try Self.bindKind(sharing, Target())
        #expect(own.rules.history == nil && own.rules !== sharing.rules)
    }

    @Test func aRemovalChangesOnlyTheResolverThatRemoves() throws {
        let (first, second) = (Self.sharing(), Self.sharing())
        let (a, b) = (Target(), Target())
        try Self.bindKind(first, a)
        try Self.bindKind(second, b)
        try first.apply(.selected)
        try second.apply(.selected)
        let shared = first.rules
        #expect(second.removeValue(for: \.title, of: b, when: .containing(.selected)))
        #expect(b.title == "t0" && a.title == "T")
        #expect(second.rules !== shared && second.rules.history == nil && first.rules === shared)
        #expect(first.ruleCount == 2 && second.ruleCount == 1)
        try first.apply(.normal)
        try first.apply(.selected)
        #expect(a.title == "T")
        // A later bind that matches the shared table's is not shared: the rules are its own.
        try second.setValue("T", for: \.title, of: b, when: .containing(.selected))
        #expect(second.rules.history == nil && b.title == "T")
    }

    /// A target that dies is purged from its resolver's rules only: the others on the table
    /// keep theirs.
    @Test func aDeadTargetIsPurgedFromItsResolverOnly() throws {
        let (first, second) = (Self.sharing(), Self.sharing())
        let kept = Target()
        var dying: Target? = Target()
        try Self.bindKind(first, dying!)
        try Self.bindKind(second, kept)
        #expect(first.rules === second.rules)
        dying = nil
        for state in [ControlState.selected, .normal, .highlighted, .normal] + Array(repeating: .normal, count: 8) {
            try first.apply(state)
        }
        #expect(first.ruleCount == 0 && first.rules !== second.rules)
        try second.apply(.selected)
        #expect(second.ruleCount == 2 && kept.title == "T")
    }

    @Test func valuesAreSharedByTheirBits() throws {
        let (first, second, other) = (Self.sharing(), Self.sharing(), Self.sharing())
        try first.setValue(Tag(name: "g1"), for: \.tag, of: Target(), when: .containing(.selected))
        try second.setValue(Tag(name: "g1"), for: \.tag, of: Target(), when: .containing(.selected))
        try other.setValue(Tag(name: "g2"), for: \.tag, of: Target(), when: .containing(.selected))
        #expect(first.rules === second.rules && first.rules !== other.rules && other.rules.history != nil)
    }

    @Test func bindsThatCannotBeSharedMakeTheRulesOwn() throws {
        let (replacing, custom) = (Self.sharing(), Self.sharing())
        let target = Target()
        try replacing.setValue("A", for: \.title, of: target, when: .containing(.selected))
        #expect(replacing.rules.history != nil)
        // The history would keep the value replaced for the table's life.
        try replacing.setValue("B", for: \.title, of: target, when: .containing(.selected))
        #expect(replacing.rules.history == nil)
        try custom.setValue("C", for: \.title, of: Target(), when: .custom("odd", priority: 1) { $0.rawValue & 1 == 1 })
        #expect(custom.rules.history == nil)
    }

    /// Even from rules of its own (a removal made them so).
    @Test func removingEveryValueReturnsToTheSharedEmptyTable() throws {
        let (first, second) = (Self.sharing(), Self.sharing())
        let (a, b) = (Target(), Target())
        try Self.bindKind(first, a)
        try first.apply(.selected)
        first.removeValues(for: \.count, of: a)
        #expect(first.rules.history == nil)
        first.removeAllValues()
        #expect(first.rules === RuleTable.empty && first.ruleCount == 0 && a.title == "t0")
        try Self.bindKind(first, a)
        try Self.bindKind(second, b)
        #expect(first.rules === second.rules && a.title == "T")
    }

    /// Rules of its own are removed in place: their custom names are forgotten, and a cache
    /// budget of its own stays (the resolver does not return to the shared empty table then).
    @Test func removingEveryValueFromRulesOfItsOwn() throws {
        let (named, budgeted) = (Self.sharing(), Self.sharing())
        try named.setValue("C", for: \.title, of: Target(), when: .custom("odd", priority: 1) { $0.rawValue & 1 == 1 })
        #expect(named.customNameCount == 1)
        named.removeAllValues()
        #expect(named.customNameCount == 0 && named.rules === RuleTable.empty)
        try Self.bindKind(budgeted, Target())
        budgeted.cacheBudget = 4_096
        budgeted.removeAllValues()
        #expect(budgeted.cacheBudget == 4_096 && budgeted.rules !== RuleTable.empty && budgeted.ruleCount == 0)
    }

    @Test func aTableGoesWithTheLastResolverOnIt() throws {
        var history: BindHistory?
        do {
            let (first, second) = (Self.sharing(), Self.sharing())
            let (a, b) = (Target(), Target())
            try Self.bindKind(first, a, title: "gone")
            try Self.bindKind(second, b, title: "gone")
            history = first.rules.history
            #expect(RuleTable.registered(history!) === first.rules)
        }
        #expect(RuleTable.registered(history!) == nil)
    }

    /// Two resolvers on one table: each binds an observed title (its setter calls back) and
    /// the kind's values, to a target of its own.
    static func twoOfAKindWithAnObservedTitle() throws -> (StateResolver, StateResolver, Target, Target) {
        let (first, second) = (Self.sharing(), Self.sharing())
        let (a, b) = (Target(), Target())
        for (resolver, target) in [(first, a), (second, b)] {
            try resolver.setValue("A", for: \.observedTitle, of: target, when: .containing(.selected))
            try Self.bindKind(resolver, target)
        }
        return (first, second, a, b)
    }

    /// A setter run by one resolver's apply binds and applies on another that shares its table:
    /// that one copies or moves, the apply goes on from a copy of its changes, and every value
    /// ends as the resolvers say (ASan checks the memory in `make sanitize`).
    @Test func aSetterThatChangesAnotherResolverOnTheSameTable() throws {
        let (first, second, a, b) = try Self.twoOfAKindWithAnObservedTitle()
        #expect(first.rules === second.rules)
        a.onTitle = { _ in
            do {
                try second.apply(.selected)  // diffs on the shared table, which frees the first's diff
                try second.setValue("B", for: \.title, of: b, when: .containing(.selected, priority: 2000))
                try second.apply([.selected, .highlighted])
            } catch { Issue.record(error) }
        }
        try first.apply([.selected, .highlighted])
        #expect((a.observedTitle, a.title, a.count) == ("A", "T", 7))
        #expect((b.observedTitle, b.title, b.count) == ("A", "B", 7))
        #expect(first.rules !== second.rules)
        a.onTitle = nil
        try first.apply(.normal)
        #expect((a.observedTitle, a.title, a.count) == ("t0", "t0", 0))
    }

    /// A setter run by an apply binds on its own resolver, which moves to the table another
    /// resolver made with those binds: the apply goes on and writes what that table says.
    @Test func aSetterThatMovesItsResolverToAnotherTable() throws {
        let (first, second, a, b) = try Self.twoOfAKindWithAnObservedTitle()
        try second.setValue(3, for: \.count, of: b, when: .containing(.selected, priority: 1))
        a.onTitle = { _ in try? first.setValue(3, for: \.count, of: a, when: .containing(.selected, priority: 1)) }
        try first.apply(.selected)
        #expect(first.rules === second.rules)
        #expect((a.observedTitle, a.title, a.count) == ("A", "T", 3))
        a.onTitle = nil
        try first.apply(.normal)
        #expect((a.observedTitle, a.title, a.count) == ("t0", "t0", 0))
    }

    /// Random binds, removals, applies and cache calls on sharing resolvers, each step made on
    /// half of them or one (so that they often made the same binds) and mirrored on resolvers of
    /// their own: after every step each target holds what its twin holds.
    @Test(arguments: 0..<4 as Range<UInt64>)
    func sharingResolversMatchResolversOfTheirOwn(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let count = 6
        let sharing = (0..<count).map { _ in Self.sharing() }
        let own = (0..<count).map { _ in StateResolver() }
        let targets = (0..<count).map { _ in Target() }, twins = (0..<count).map { _ in Target() }
        let descriptors: [StateDescriptor] = [
            .containing(.selected), .containing(.highlighted, priority: 5), .notContaining(.disabled, priority: 2),
        ]
        let states: [ControlState] = [.normal, .selected, .highlighted, .disabled, [.selected, .highlighted]]
        var stepsSharing = 0
        for step in 0..<1_000 {
            let descriptor = descriptors.randomElement(using: &random)!
            let (title, number) = (["T", "U"].randomElement(using: &random)!, Int.random(in: 0..<2, using: &random))
            let state = states.randomElement(using: &random)!
            let operation = Int.random(in: 0..<40, using: &random)
            // Mostly on a half of the resolvers, which then made the same binds; else on one.
            let half = Int.random(in: 0..<2, using: &random) * count / 2
            let indices = Int.random(in: 0..<6, using: &random) > 0 ? half..<half + count / 2 : half..<half + 1
            for index in indices {
                for (resolver, target) in [(sharing[index], targets[index]), (own[index], twins[index])] {
                    switch operation {
                    case 0..<12: try resolver.setValue(title, for: \.title, of: target, when: descriptor)
                    case 12..<20: try resolver.setValue(number, for: \.count, of: target, when: descriptor)
                    case 20..<30: try resolver.apply(state)
                    case 30: _ = resolver.removeValue(for: \.title, of: target, when: descriptor)
                    case 31: resolver.removeValues(for: \.count, of: target)
                    case 32, 33: resolver.releaseCaches()
                    default: resolver.removeAllValues()
                    }
                }
            }
            for (target, twin) in zip(targets, twins) {
                #expect((target.title, target.count) == (twin.title, twin.count), "seed \(seed), step \(step)")
            }
            let bound = sharing.filter { $0.ruleCount > 0 }
            stepsSharing += Set(bound.map { ObjectIdentifier($0.rules) }).count < bound.count ? 1 : 0
        }
        #expect(stepsSharing > 500, "seed \(seed)")  // the walk did share tables
    }
}
