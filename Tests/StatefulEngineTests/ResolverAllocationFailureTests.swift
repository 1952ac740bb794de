import CJudyFaultInjection
import Testing
@testable import StatefulEngine

/// Allocation failure through the Swift layer: every heap allocation of the C table and of Judy
/// goes through `JudyMalloc`, and a scripted workload of binds, applies and removals runs with it
/// failing at every index in turn (once, or from that index on). A bind that fails throws
/// ``ResolverError/outOfMemory`` and changes nothing; an apply and a removal never fail (a diff
/// without memory is computed pair by pair; a removal from shared rules, which copies them, is not
/// tried without memory: see ``bindsOnSharedRules(persistent:)``); after every call each bound
/// property holds what the rules say for the applied state; nothing leaks once the resolver goes.
///
/// (`make sanitize` runs the suites named `…AllocationFailureTests` without leak detection:
/// libJudy itself leaks up to two nodes when an allocation fails mid-insert; the C suite
/// counts those exactly.)
@Suite("StateResolver: allocation failures")
struct ResolverAllocationFailureTests {
    final class Target {
        var number = 0
        var text = ""
    }

    /// The rules the workload bound, most recent last, and what they say.
    struct Model {
        var rules: [Int: [(descriptor: StateDescriptor, value: Int)]] = [:]
        var texts: [Int: [(descriptor: StateDescriptor, value: String)]] = [:]

        static func winner<Value>(_ rules: [(descriptor: StateDescriptor, value: Value)]?, in state: ControlState) -> Value? {
            // Highest priority wins; between equal priorities the one set last.
            rules?.enumerated().filter { $0.element.descriptor.matches(state) }
                .max { ($0.element.descriptor.priority, $0.offset) < ($1.element.descriptor.priority, $1.offset) }?
                .element.value
        }

        static func set<Value>(_ rules: inout [(descriptor: StateDescriptor, value: Value)], _ d: StateDescriptor, _ value: Value) {
            rules.removeAll { $0.descriptor == d }
            rules.append((d, value))
        }
    }

    static let states: [ControlState] = [.normal, .selected, [.selected, .highlighted], .disabled, [.focused, .disabled]]

    /// Whether `bind` bound; false when it threw out of memory (any other error is rethrown).
    static func bound(_ bind: () throws(ResolverError) -> Void) throws(ResolverError) -> Bool {
        do { try bind() } catch {
            guard case .outOfMemory = error else { throw error }
            return false
        }
        return true
    }

    /// The workload's `i`th bind of a number: to target `i` of 4, for a mask and priority of `i`.
    /// Whether it bound; false when it threw out of memory.
    static func bindNumber(_ i: Int, _ resolver: StateResolver, _ targets: [Target], _ model: inout Model) throws(ResolverError) -> Bool {
        let index = i % targets.count
        let mask: ControlState = [.selected, .highlighted, .disabled, .focused, [.selected, .highlighted], []][i % 6]
        let descriptor = StateDescriptor.containing(mask, priority: Int32(i % 3) * 500)
        guard try bound({ () throws(ResolverError) in try resolver.setValue(100 + i, for: \.number, of: targets[index], when: descriptor) })
        else { return false }
        Model.set(&model.rules[index, default: []], descriptor, 100 + i)
        return true
    }

    /// Runs the workload from its step `first` on, checking the invariant after every call;
    /// `beforeRemovals` runs between its binds and its removals.
    static func workload(
        _ resolver: StateResolver, _ targets: [Target], _ model: inout Model, from first: Int = 0, beforeRemovals: () -> Void = {}
    ) throws {
        func check(_ model: Model) throws {
            for (index, target) in targets.enumerated() {
                let number = Model.winner(model.rules[index], in: resolver.appliedState) ?? 0
                let text = Model.winner(model.texts[index], in: resolver.appliedState) ?? ""
                try #require(target.number == number && target.text == text, "target \(index) in [\(resolver.appliedState)]")
                for state in states where model.rules[index] != nil {
                    try #require(resolver.value(for: \.number, of: target, in: state) == (Model.winner(model.rules[index], in: state) ?? 0))
                }
            }
        }
        for i in first..<24 {
            let index = i % targets.count
            // A bind that throws out of memory changed nothing: checked below.
            _ = try bindNumber(i, resolver, targets, &model)
            let custom = StateDescriptor.custom("rule \(i % 4)", priority: 700) { $0.contains(.selected) }
            if try bound({ () throws(ResolverError) in
                try resolver.setValue("t\(i)", for: \.text, of: targets[(index + 1) % targets.count], when: custom)
            }) {
                Model.set(&model.texts[(index + 1) % targets.count, default: []], custom, "t\(i)")
            }
            try check(model)
            if i % 3 == 2 {
                try resolver.apply(states[i % states.count])  // never fails for lack of memory
                try check(model)
            }
        }
        beforeRemovals()
        if resolver.removeValue(for: \.number, of: targets[1], when: .containing(.highlighted, priority: 0)) {
            model.rules[1]?.removeAll { $0.descriptor == .containing(.highlighted, priority: 0) }
        }
        resolver.removeValues(of: targets[2])
        model.rules[2] = nil
        model.texts[2] = nil
        try check(model)
        try resolver.apply(.selected)
        try check(model)
    }

    /// Runs `scenario` once for each allocation index N = 0, 1, … (it arms the failure of the Nth
    /// allocation itself, where the part it checks starts, and returns whether an allocation
    /// failed), checking that no run leaks a block of the tables, until a run in which none
    /// failed. Returns the number of runs in which one did.
    static func eachAllocationFailing(_ scenario: (_ index: Int) throws -> Bool) throws -> Int {
        var failures = 0
        for index in 0..<20_000 {
            let ours = fault_injection_live_other_blocks()
            let fired = try scenario(index)
            try #require(fault_injection_live_other_blocks() == ours, "the tables leaked after failing allocation \(index)")
            if !fired { break }
            failures += 1
        }
        return failures
    }

    /// With memory back: each resolver agrees with its model in every state, and the first one
    /// empties completely.
    static func checkWithMemoryBack(_ runs: [(StateResolver, [Target], Model)], failure index: Int) throws {
        for state in states {
            for (resolver, targets, model) in runs {
                try resolver.apply(state)
                for (i, target) in targets.enumerated() {
                    try #require(target.number == (Model.winner(model.rules[i], in: state) ?? 0), "failure at \(index)")
                }
            }
        }
        let (resolver, targets, _) = runs[0]
        resolver.removeAllValues()
        try #require(resolver.ruleCount == 0 && targets.allSatisfy { $0.number == 0 && $0.text == "" })
    }

    @Test(arguments: [false, true])
    func everyAllocationOfAScriptedWorkloadCanFail(persistent: Bool) throws {
        let failures = try Self.eachAllocationFailing { index in
            let resolver = StateResolver()
            let targets = (0..<4).map { _ in Target() }
            var model = Model()
            fault_injection_arm(index, persistent)
            defer { fault_injection_disarm() }
            try Self.workload(resolver, targets, &model)
            let fired = fault_injection_fired()
            fault_injection_disarm()
            try Self.checkWithMemoryBack([(resolver, targets, model)], failure: index)
            return fired
        }
        #expect(failures > 50, "the workload should allocate many times")
    }

    /// The workload on rules shared with a twin, a resolver that made its first 6 number binds
    /// (and holds the table they make): the resolver under test makes the same binds in tables
    /// of its own, moves onto the twin's table at the 6th, and copies it at the 7th, the
    /// workload's next step. A failed copy throws ``ResolverError/outOfMemory`` and leaves both
    /// resolvers as they were.
    ///
    /// On the main actor, as a control's resolvers are: shared tables are the process's, and
    /// the allocation counters are the thread's.
    @MainActor @Test(arguments: [false, true])
    func bindsOnSharedRules(persistent: Bool) throws {
        let sharedBinds = 6
        _ = RuleTable.empty  // made once for the process: not a leak of the first run
        var moved = false
        let failures = try Self.eachAllocationFailing { index in
            let twin = StateResolver(sharingRules: true)
            let twinTargets = (0..<4).map { _ in Target() }
            var twinModel = Model()
            for i in 0..<sharedBinds { try #require(try Self.bindNumber(i, twin, twinTargets, &twinModel)) }
            let resolver = StateResolver(sharingRules: true)
            let targets = (0..<4).map { _ in Target() }
            var model = Model()
            var fired = false
            fault_injection_arm(index, persistent)
            defer { fault_injection_disarm() }
            // Moved onto the twin's table at the 6th bind (when the binds before it bound).
            for i in 0..<sharedBinds { _ = try Self.bindNumber(i, resolver, targets, &model) }
            if resolver.rules === twin.rules { moved = true }
            try Self.workload(resolver, targets, &model, from: sharedBinds) {
                // Still on the twin's rules (every bind since failed): a removal copies them,
                // and stops the program when there is no memory, as a `Control`'s bind does.
                if resolver.rules === twin.rules {
                    fired = fault_injection_fired()
                    fault_injection_disarm()
                }
            }
            fired = fired || fault_injection_fired()
            fault_injection_disarm()
            // The twin kept its rules.
            try #require(twin.ruleCount == sharedBinds)
            try Self.checkWithMemoryBack([(resolver, targets, model), (twin, twinTargets, twinModel)], failure: index)
            return fired
        }
        #expect(moved, "the resolver should have moved onto the twin's table")
        #expect(failures > 50, "the workload should allocate many times")
    }
}
