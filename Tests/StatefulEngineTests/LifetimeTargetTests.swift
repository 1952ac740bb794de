import Testing
@testable import StatefulEngine

/// Targets that report the end of their life (`ReportsLifetime`, as the library's views do): the
/// portable access holds them by their `TargetLifetime` instead of a weak reference, and a
/// target at the address of the object whose method applies (`apply(_:calledBy:)`) without
/// retaining it. Every test holds in both accesses; the suite runs in each (`make portable`).
/// Only a resolver of the main actor (a control's: one that shares rules) holds a target by its
/// lifetime, which ends on the main actor; any other holds it weakly.
@Suite("StateResolver: targets that report their lifetime")
@MainActor
struct LifetimeTargetTests {
    class Reporting: ReportsLifetime {
        let lifetime = TargetLifetime()
        var a = "a0" { didSet { onA?(a) } }
        var b = "b0"
        var onA: ((String) -> Void)?
        deinit { lifetime.end() }
    }

    /// A subclass whose `deinit` body applies a state that changes its own bound value.
    final class ApplyingInDeinit: Reporting {
        var onDeinit: (() -> Void)?
        deinit { onDeinit?() }
    }

    /// An object that holds a resolver binding its own properties and applies it from a method
    /// of its own, as a control does.
    final class SelfApplying: ReportsLifetime {
        let lifetime = TargetLifetime()
        let resolver = StateResolver(sharingRules: true)
        var a = "a0" { didSet { onA?() } }
        var b = "b0"
        var onA: (() -> Void)?
        deinit { lifetime.end() }

        func apply(_ state: ControlState) throws { try resolver.apply(state, calledBy: self) }
    }

    @Test func aResolverOffTheMainActorHoldsItWeakly() throws {
        let resolver = StateResolver(), target = Reporting()
        try resolver.setValue("A", for: \.a, of: target, when: .containing(.selected))
        let record = try #require(resolver.existingTarget(target))
        #expect(record is PortableBoundTarget == (PropertyAccess.current == .portable))
    }

    @Test func aTargetThatReportsItsLifetimeIsHeldByItAndPurgedWhenItEnds() throws {
        let resolver = StateResolver(sharingRules: true)
        var target: Reporting? = Reporting()
        try resolver.setValue("A", for: \.a, of: target!, when: .containing(.selected))
        let record = try #require(resolver.existingTarget(target!))
        #expect((record is LifetimeBoundTarget) == (PropertyAccess.current == .portable))
        try resolver.apply(.selected)
        #expect(target?.a == "A")
        weak let released = target
        target = nil
        #expect(released == nil)
        #expect(record.liveAddress == nil)
        #expect(try resolver.apply(.normal) == 0)  // skipped, and purged
        #expect(resolver.ruleCount == 0)
    }

    @Test func theSweepFindsTargetsWhoseLifetimeEnded() throws {
        let resolver = StateResolver(sharingRules: true)
        let kept = Reporting()
        try resolver.setValue("A", for: \.a, of: kept, when: .containing(.selected))
        do {
            let gone = (0..<3).map { _ in Reporting() }
            for target in gone { try resolver.setValue("B", for: \.b, of: target, when: .containing(.focused)) }
        }
        #expect(resolver.ruleCount == 4)
        // States no rule of the dead targets reads: only the sweep can find them.
        for index in 0..<64 { try resolver.apply(index.isMultiple(of: 2) ? .selected : .normal) }
        #expect(resolver.ruleCount == 1)
        #expect(kept.a == "a0")
    }

    /// The write holds the target: a setter that lets go of the last other reference to it runs
    /// on a live object (ASan checks the memory), which goes when the write ends; its other
    /// binding is purged in the same apply.
    @Test func aSetterThatReleasesTheLastReferenceToItsTarget() throws {
        final class Owner { var object: Reporting? }
        let resolver = StateResolver(sharingRules: true)
        let owner = Owner()
        nonisolated(unsafe) var seenInSetter: [String] = []
        weak var released: Reporting?
        do {
            let target = Reporting()
            target.onA = { [unowned target] value in
                owner.object = nil
                seenInSetter.append(value + target.b)
            }
            try resolver.setValue("A", for: \.a, of: target, when: .containing(.selected))
            try resolver.setValue("B", for: \.b, of: target, when: .containing(.selected))
            owner.object = target
            released = target
        }
        try resolver.apply(.selected)
        #expect(seenInSetter == ["Ab0"])
        #expect(released == nil)
        #expect(resolver.ruleCount == 0)
    }

    /// The object whose method applies holds itself, which is why `apply(_:calledBy:)` may write
    /// it without a retain: its own setter may let go of every other reference to it, and the
    /// write still lands on a live object (ASan checks the memory) — the method's caller holds
    /// it until the method returns. (That the retain is skipped shows in instructions, in
    /// `make bench-ir`'s portable button, not here.)
    @Test func theApplyingObjectsOwnSetterThatReleasesTheLastOtherReference() throws {
        nonisolated(unsafe) var holder: SelfApplying? = SelfApplying()
        weak let released = holder
        try holder!.resolver.setValue("A", for: \.a, of: holder!, when: .containing(.selected))
        try holder!.resolver.setValue("B", for: \.b, of: holder!, when: .containing(.selected))
        nonisolated(unsafe) var seen: [String] = []
        holder!.onA = { [unowned(unsafe) object = holder!] in
            holder = nil
            seen.append(object.a + object.b)
        }
        try holder!.apply(.selected)
        #expect(seen == ["Ab0"])
        #expect(released == nil)
    }

    /// A class's `deinit` runs after its subclasses': while a subclass's `deinit` body runs, its
    /// lifetime has not ended, so the portable access still writes to it (its storage is intact
    /// until every `deinit` body has run); the direct access, and a weak reference, already see
    /// it as gone. Either way, nothing outlives the object (ASan checks the memory), and its
    /// bindings are purged by the next apply.
    @Test func aSubclassDeinitThatAppliesAStateChangingItsOwnValue() throws {
        let resolver = StateResolver(sharingRules: true)
        nonisolated(unsafe) var written: [String] = []
        do {
            let target = ApplyingInDeinit()
            try resolver.setValue("A", for: \.a, of: target, when: .containing(.selected))
            target.onA = { written.append($0) }
            target.onDeinit = { _ = try? resolver.apply(.selected) }
        }
        #expect(written == (PropertyAccess.current == .portable ? ["A"] : []))
        try resolver.apply(.normal)
        #expect(resolver.ruleCount == 0)
    }
}
