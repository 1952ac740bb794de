import Testing
@testable import StatefulEngine

/// User code calls back: setters, value deinits and predicates may call the resolver. After
/// every such sequence each bound property equals what the resolver says for the applied state.
@Suite("StateResolver: user code that calls back")
struct ReentrancyTests {
    /// Runs `onDeinit` when released: a bound value whose deinit is user code.
    final class Hook: @unchecked Sendable {
        let name: String
        var onDeinit: (() -> Void)?
        init(_ name: String, onDeinit: (() -> Void)? = nil) { (self.name, self.onDeinit) = (name, onDeinit) }
        deinit { onDeinit?() }
    }

    final class Target {
        var hook: Hook?
        var a = "a0" { didSet { onA?(a) } }
        var b = "b0"
        var onA: ((String) -> Void)?
    }

    @Test func aValueWhoseDeinitRemovesBindingsWhileItIsReplaced() throws {
        let resolver = StateResolver()
        let target = Target()
        try resolver.setValue("B", for: \.b, of: target, when: .containing(.focused))
        try resolver.apply(.focused)
        #expect(target.b == "B")
        nonisolated(unsafe) var deinitRan = false
        // Only the resolver holds this hook: replacing it releases it, and its deinit calls back.
        try resolver.setValue(
            Hook("first") {
                deinitRan = true
                resolver.removeValues(for: \.b, of: target)
            }, for: \.hook, of: target, when: .containing(.selected))
        try resolver.setValue(Hook("second"), for: \.hook, of: target, when: .containing(.selected))
        #expect(deinitRan)
        #expect(target.b == "b0" && resolver.value(for: \.b, of: target, in: .focused) == nil)
        #expect(resolver.ruleCount == 1)
        try resolver.apply(.selected)
        #expect(target.hook?.name == "second")
    }

    @Test func aSetterThatRemovesAnotherBindingDuringApplyLeavesItsDefault() throws {
        let resolver = StateResolver()
        let target = Target()
        try resolver.setValue("A", for: \.a, of: target, when: .containing(.selected))
        try resolver.setValue("B", for: \.b, of: target, when: .containingNone(.selected))
        #expect(target.b == "B")
        target.onA = { [unowned target] _ in resolver.removeValues(for: \.b, of: target) }
        try resolver.apply(.selected)  // writes a first (first-bind order); its setter removes b
        #expect(target.a == "A")
        #expect(target.b == "b0")  // b's default, not the value of the state left
        #expect(resolver.value(for: \.b, of: target, in: .selected) == nil)
    }

    /// An object whose bound property's setter lets go of the last reference to it, from
    /// outside, still runs on a live object: the resolver holds it through the write (ASan
    /// checks the memory), and the object goes when the write ends — its other bindings are
    /// purged in the same apply. Each way a value is written: the caller's assignment (a
    /// literal), the bound key path once the expression gives another one, and a path through
    /// another object (the key path writer, and the direct access's fallback).
    @Test(arguments: ["literal", "expression changed", "path through another object"])
    func aSetterThatReleasesTheLastReferenceToItsTarget(_ write: String) throws {
        final class Holder {
            let target = Target()
            var other = "o0"
        }
        final class Owner { var object: AnyObject? }
        let resolver = StateResolver()
        let owner = Owner()
        nonisolated(unsafe) var seenInSetter: [String] = []
        weak var released: AnyObject?
        do {
            let holder = Holder(), target = holder.target
            target.onA = { [unowned target] value in
                owner.object = nil  // the last reference but the resolver's
                seenInSetter.append(value + target.b)
            }
            switch write {
            case "literal":
                try resolver.setValue("A", for: \.a, of: target, when: .containing(.selected))
                try resolver.setValue("B", for: \.b, of: target, when: .containing(.selected))
                owner.object = target
            case "expression changed":
                var keyPath: ReferenceWritableKeyPath<Target, String> = \.a
                try resolver.setValue("A", for: keyPath, of: target, when: .containing(.selected))
                keyPath = \.b  // the binding still writes `a`
                try resolver.setValue("B", for: keyPath, of: target, when: .containing(.selected))
                owner.object = target
            default:
                try resolver.setValue("A", for: \.target.a, of: holder, when: .containing(.selected))
                try resolver.setValue("B", for: \.other, of: holder, when: .containing(.selected))
                owner.object = holder
            }
            released = owner.object
        }
        #expect(resolver.ruleCount == 2)
        try resolver.apply(.selected)  // writes `a` first: its setter releases the bound object
        #expect(seenInSetter == ["Ab0"])
        #expect(released == nil)
        #expect(resolver.ruleCount == 0)  // the dead target's bindings purged in the same apply
        try resolver.apply(.normal)
    }

    /// The apply loop borrows the binding it writes: a setter that removes that very binding,
    /// and a replaced value whose deinit removes every binding, must not free it under the
    /// loop (ASan checks the memory; the values check the invariant).
    @Test func writesWhoseUserCodeRemovesTheBindingBeingWritten() throws {
        let resolver = StateResolver()
        let target = Target()
        try resolver.setValue("A", for: \.a, of: target, when: .containing(.selected))
        target.onA = { [unowned target] _ in resolver.removeValues(for: \.a, of: target) }
        try resolver.apply(.selected)  // a's setter removes a's binding: default written back
        #expect(target.a == "a0" && resolver.bindings.isEmpty)

        // The rest replaces a value whose deinit writes the property being replaced: an
        // exclusivity violation in Swift (the program stops), which the portable access, a
        // plain key path write, inherits; the direct access's in-place write is not checked.
        guard PropertyAccess.current == .direct else { return }
        target.onA = nil
        nonisolated(unsafe) var deinitRan = false
        let stored = StoredHookTarget()
        try resolver.setValue(Hook("bound"), for: \.hook, of: stored, when: .containing(.highlighted))
        try resolver.setValue("B", for: \.b, of: target, when: .containing(.highlighted))
        // A value only the property holds: the resolver's store releases it, and its deinit
        // removes everything, including the binding being written and the one after it.
        stored.hook = Hook("mine") {
            deinitRan = true; resolver.removeAllValues()
        }
        try resolver.apply(.highlighted)
        #expect(deinitRan && resolver.bindings.isEmpty && resolver.ruleCount == 0)
        #expect(stored.hook == nil && target.b == "b0")
    }

    /// A setter that resolves many new states (evicting caches) or changes the cache budget
    /// while an apply reads its diff in place: the rest of the apply still writes the right
    /// values (ASan checks the memory).
    @Test func settersThatEvictCachesDuringAnApply() throws {
        let (resolver, first, others) = try Self.firstAndTwentyOthersBoundWhenSelected()
        resolver.cacheBudget = 8_192
        first.onA = { _ in
            for bits in 0..<2_000 { _ = resolver.value(for: \.b, of: others[bits % 20], in: ControlState(rawValue: UInt(bits) << 8)) }
            resolver.cacheBudget = 0
        }
        try resolver.apply(.selected)
        #expect(first.a == "A" && others.enumerated().allSatisfy { $0.element.b == "B\($0.offset)" })
        first.onA = nil
        resolver.cacheBudget = 1 << 20
        try resolver.apply(.normal)
        #expect(first.a == "a0" && others.allSatisfy { $0.b == "b0" })
    }

    /// A setter that releases the caches while an apply reads its diff in place: the rest of
    /// the apply still writes the right values, and later changes diff again (ASan checks the
    /// memory).
    @Test func aSetterThatReleasesTheCachesDuringAnApply() throws {
        let (resolver, first, others) = try Self.firstAndTwentyOthersBoundWhenSelected()
        var releases = 0
        first.onA = { _ in
            resolver.releaseCaches()
            releases += 1
        }
        for _ in 0..<2 {
            try resolver.apply(.selected)
            #expect(first.a == "A" && others.enumerated().allSatisfy { $0.element.b == "B\($0.offset)" })
            try resolver.apply(.normal)
            #expect(first.a == "a0" && others.allSatisfy { $0.b == "b0" })
        }
        #expect(releases == 4)
        first.onA = nil
        try resolver.apply(.selected)
        #expect(resolver.cacheBytes > 0 && first.a == "A")  // diffed and cached again
    }

    /// A final class: its `hook` is written at its address, not through a setter.
    final class StoredHookTarget { var hook: Hook? }

    @Test func aSetterThatBindsDuringRemoveAllValuesKeepsItsValue() throws {
        let resolver = StateResolver()
        let target = Target()
        try resolver.setValue("A", for: \.a, of: target, when: .containingNone(.selected))
        try resolver.setValue("B", for: \.b, of: target, when: .containingNone(.selected))
        #expect(target.a == "A" && target.b == "B")
        target.onA = { [unowned target] value in
            guard value == "a0" else { return }
            try? resolver.setValue("B2", for: \.b, of: target, when: .containingNone(.selected))
        }
        resolver.removeAllValues()  // a's default is written first; its setter binds b again
        #expect(target.a == "a0")
        #expect(target.b == "B2")
        #expect(resolver.value(for: \.b, of: target, in: .normal) == "B2")
        #expect(resolver.value(for: \.b, of: target, in: .selected) == "b0")  // the first default, kept
        #expect(resolver.ruleCount == 1)
    }

    @Test func removalWritesDefaultsInFirstBindOrder() throws {
        final class Log { var entries: [String] = [] }
        final class Recorder {
            let name: String, log: Log
            var x = 0 { didSet { log.entries.append("\(name).x") } }
            var y = 0 { didSet { log.entries.append("\(name).y") } }
            init(_ name: String, _ log: Log) { (self.name, self.log) = (name, log) }
        }
        for _ in 0..<5 {  // Dictionary and Set orders change from instance to instance
            let log = Log()
            let resolver = StateResolver()
            let first = Recorder("first", log), second = Recorder("second", log)
            try resolver.setValue(1, for: \.y, of: second, when: .containing([]))
            try resolver.setValue(1, for: \.x, of: first, when: .containing([]))
            try resolver.setValue(1, for: \.x, of: second, when: .containing([]))
            try resolver.setValue(1, for: \.y, of: first, when: .containing([]))
            log.entries = []
            resolver.removeAllValues()
            // Targets in first-bind order; each target's key paths in the order first seen.
            #expect(log.entries == ["second.y", "second.x", "first.y", "first.x"])
            try resolver.setValue(2, for: \.x, of: first, when: .containing([]))
            try resolver.setValue(2, for: \.y, of: first, when: .containing([]))
            log.entries = []
            resolver.removeValues(of: first)
            #expect(log.entries == ["first.y", "first.x"])
        }
    }

    /// A custom name's newest predicate replaces the one the name carried, which its entry alone
    /// may hold (the rule it came with was removed): its captures are released once the
    /// resolver is consistent, and their deinit may bind again.
    @Test func aReplacedPredicateWhoseCapturesBindAgainWhenReleased() throws {
        let resolver = StateResolver()
        let target = Target()
        nonisolated(unsafe) var deinitRan = false
        do {
            let hook = Hook("captured") {
                deinitRan = true
                try? resolver.setValue("b from a deinit", for: \.b, of: target, when: .custom("other", priority: 5) { _ in true })
            }
            // Two rules of one name; the second's predicate is the name's latest.
            try resolver.setValue("a1", for: \.a, of: target, when: .custom("name", priority: 1) { _ in true })
            try resolver.setValue(
                "b2", for: \.b, of: target, when: .custom("name", priority: 2) { _ in withExtendedLifetime(hook) { true } })
        }
        #expect(target.a == "a1" && target.b == "b2")
        // The table lets go of the second rule's predicate; the name's entry still holds it.
        #expect(resolver.removeValue(for: \.b, of: target, when: .custom("name", priority: 2) { _ in true }))
        #expect(!deinitRan && target.b == "b0")
        // A third rule of the name replaces it: released at the end of this bind, which it re-enters.
        try resolver.setValue("a3", for: \.a, of: target, when: .custom("name", priority: 3) { _ in true })
        #expect(deinitRan)
        #expect(target.a == "a3" && target.b == "b from a deinit")
    }

    @Test func aPredicateThatReleasesTheCachesIsStoppedWithAMessage() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            try Self.applyWithAPredicateThatCalls { $0.releaseCaches() }
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("StateResolver.releaseCaches() called from a custom predicate"))
    }

    @Test func aPredicateThatCallsBackIsStoppedWithAMessage() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            try Self.applyWithAPredicateThatCalls { $0.removeAllValues() }
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(
            stderr.contains(
                "StateResolver.removeAllValues() called from a custom predicate; a predicate must be a pure function of the state"))
    }

    /// A resolver binding `a` of one target to "A" and `b` of twenty others to "B0" … "B19",
    /// each when selected: the setters of an apply that writes 21 values.
    static func firstAndTwentyOthersBoundWhenSelected() throws -> (StateResolver, first: Target, others: [Target]) {
        let resolver = StateResolver()
        let first = Target(), others = (0..<20).map { _ in Target() }
        try resolver.setValue("A", for: \.a, of: first, when: .containing(.selected))
        for (index, target) in others.enumerated() {
            try resolver.setValue("B\(index)", for: \.b, of: target, when: .containing(.selected))
        }
        return (resolver, first, others)
    }

    /// In an exit test's child: binds a value whose custom predicate calls `callBack` on its
    /// resolver, then applies a state, which evaluates the predicate.
    static func applyWithAPredicateThatCalls(_ callBack: @escaping @Sendable (StateResolver) -> Void) throws {
        final class Label { var text = "" }
        nonisolated(unsafe) let resolver = StateResolver()
        let label = Label()
        try resolver.setValue(
            "custom", for: \.text, of: label,
            when: .custom("calls back", priority: 1) { _ in
                callBack(resolver)
                return true
            })
        try resolver.apply(.selected)
    }
}
