import Testing
@testable import StatefulEngine

/// What a resolver holds follows what is bound now: dead targets purged and swept, ids, names
/// and value handles reused, caches within their budget (see "Memory under churn").
@Suite("StateResolver: memory under churn")
struct StateResolverChurnTests {
    @Test func aDeadTargetsRulesNeverReachANewObjectAtTheSameAddress() throws {
        let resolver = StateResolver()
        var old: Recorder? = Recorder()
        let oldID = ObjectIdentifier(old!)
        try resolver.setValue("old", for: \.title, of: old!, when: .containing(.selected))
        old = nil
        // Allocate as malloc would reuse a freed address quickly: the dead object's record
        // keeps its memory (`keepsMemory`), so no new object lands there while it is registered.
        var keep: [Recorder] = []
        var reused: Recorder?
        for _ in 0..<10_000 {
            let candidate = Recorder()
            if ObjectIdentifier(candidate) == oldID { reused = candidate; break }
            keep.append(candidate)
        }
        #expect(reused == nil)
        let newcomer = reused ?? Recorder()
        #expect(resolver.value(for: \.title, of: newcomer, in: .selected) == nil)
        try resolver.apply(.selected)
        #expect(newcomer.writes.isEmpty)
        try resolver.setValue(9.0, for: \.width, of: newcomer, when: .containing(.focused))
        #expect(resolver.ruleCount == 1)
    }

    @Test func aDeadTargetIsSkippedAndPurgedOnApply() throws {
        let resolver = StateResolver()
        let alive = Recorder()
        try resolver.setValue("y", for: \.title, of: alive, when: .containing(.selected))
        do {
            let dying = Recorder()
            try resolver.setValue("x", for: \.title, of: dying, when: .containing(.selected))
        }
        #expect(resolver.ruleCount == 2)
        #expect(try resolver.apply(.selected) == 1)
        #expect(resolver.ruleCount == 1)
        #expect(alive.title == "y")
    }

    /// Targets that die are found by later binds of new targets (two checked each) and applies
    /// (one every eighth), so their rules, defaults and ids go however the program goes on;
    /// ids are reused.
    @Test func deadTargetsAreSweptByLaterBindsAndAppliesAndTheirIDsReused() throws {
        let resolver = StateResolver()
        for _ in 0..<1_000 {
            try resolver.setValue("x", for: \.title, of: Recorder(), when: .containing(.selected))
        }
        // Each bind checked two targets, the one just bound among them: a few hundred remain.
        #expect(resolver.ruleCount < 1_000)
        let alive = Recorder()
        for round in 0..<1_000 { try resolver.setValue("y\(round % 2)", for: \.title, of: alive, when: .containing(.selected)) }
        #expect(resolver.ruleCount == 1 && resolver.bindings.count == 1)
        // Applies alone sweep too.
        for _ in 0..<100 { try resolver.setValue("x", for: \.title, of: Recorder(), when: .containing(.focused)) }
        for round in 0..<2_000 { try resolver.apply(round % 2 == 0 ? .selected : .normal) }
        #expect(resolver.ruleCount == 1)
        // 2,100 targets bound, at most a few hundred ids ever taken.
        #expect(resolver.targets.nextID < 300)
    }

    /// Ever new states stay within the cache budget, and the budget changes only speed:
    /// every resolution and every apply is the same under a budget of 0, 4 KiB or the default.
    @Test(arguments: [0, 4_096, 16 << 20])
    func cachesStayWithinTheirBudgetAndResultsDoNotDependOnIt(budget: Int) throws {
        let resolver = StateResolver()
        #expect(resolver.cacheBudget == 16 << 20)
        resolver.cacheBudget = budget
        let targets = (0..<50).map { _ in Recorder() }
        for (index, target) in targets.enumerated() {
            try resolver.setValue(
                "bit \(index % 20)", for: \.title, of: target,
                when: .containing(ControlState(rawValue: 1 << UInt(index % 20))))
        }
        for round in 0..<3_000 {
            let state = ControlState(rawValue: UInt(round &* 2_654_435_761) & 0xFFFFF)
            try resolver.apply(state)
            for (index, target) in targets.enumerated() where index % 7 == round % 7 {
                let expected = state.rawValue & (1 << UInt(index % 20)) != 0 ? "bit \(index % 20)" : "default"
                #expect(target.title == expected)
                #expect(resolver.value(for: \.title, of: target, in: state) == expected)
            }
            #expect(resolver.cacheBytes <= max(budget, 4_096) + 16 * 1_024)
        }
    }

    /// Binding and unbinding new objects over and over takes no new ids: a target's id is
    /// reused once its rules are gone (before, 2^32 − 2 cycles exhausted them).
    @Test func bindUnbindCyclesReuseTargetIDs() throws {
        let resolver = StateResolver()
        let kept = Recorder()
        try resolver.setValue("k", for: \.title, of: kept, when: .containing(.selected))
        for cycle in 0..<10_000 {
            let target = Recorder()
            try resolver.setValue("\(cycle)", for: \.title, of: target, when: .containing(.selected))
            if cycle % 2 == 0 {
                resolver.removeValues(of: target)
            } else {
                resolver.removeAllValues(); try resolver.setValue("k", for: \.title, of: kept, when: .containing(.selected))
            }
        }
        #expect(resolver.targets.nextID <= 3)
        try resolver.apply(.selected)
        #expect(kept.title == "k" && resolver.ruleCount == 1)
    }

    /// A custom descriptor's name is forgotten with its last rule; removing by a name no rule
    /// uses neither finds nor remembers it.
    @Test func customNamesAreForgottenWithTheirLastRule() throws {
        let resolver = StateResolver()
        let target = Recorder()
        for round in 0..<1_000 {
            let name = "run-time name \(round)"
            try resolver.setValue("a", for: \.title, of: target, when: .custom(name, priority: 1000) { _ in true })
            try resolver.setValue("b", for: \.title, of: target, when: .custom(name, priority: 900) { _ in true })
            #expect(resolver.removeValue(for: \.title, of: target, when: .custom(name, priority: 1000) { _ in true }))
            #expect(resolver.customNameCount == 1)
            #expect(resolver.removeValue(for: \.title, of: target, when: .custom(name, priority: 900) { _ in true }))
            #expect(!resolver.removeValue(for: \.title, of: target, when: .custom("never set", priority: 1000) { _ in true }))
            #expect(resolver.customNameCount == 0)
        }
        try resolver.setValue("c", for: \.title, of: target, when: .custom("kept", priority: 1000) { _ in true })
        try resolver.setValue("d", for: \.title, of: target, when: .custom("kept", priority: 1000) { _ in false })  // replaces it
        #expect(resolver.customNameCount == 1)
        resolver.removeAllValues()
        #expect(resolver.customNameCount == 0 && resolver.ruleCount == 0)
    }

    @Test func valueHandlesAreReused() throws {
        let resolver = StateResolver()
        let target = Recorder()
        for round in 0..<50 {
            try resolver.setValue("v\(round)", for: \.title, of: target, when: .containing(.selected))
            try resolver.setValue("w\(round)", for: \.title, of: target, when: .containing(.focused))
        }
        #expect(resolver.slab.count == 2)
        #expect(resolver.slab.capacity <= 4)
        resolver.removeAllValues()
        #expect(resolver.slab.count == 0)
    }
}
