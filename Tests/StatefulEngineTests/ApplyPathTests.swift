import Testing
@testable import StatefulEngine

/// The apply path through the resolver, whichever property access the process uses: values of
/// every size written without touching their neighbours, dead targets, and state changes no
/// rule can tell apart.
@Suite("StateResolver: the apply path")
struct ApplyPathTests {
    class Base {
        final var stored = 0
        var observed = 0 { didSet { observedWrites += 1 } }
        var observedWrites = 0
    }

    /// Stored values of every size the direct access copies as bytes, packed between neighbours that
    /// must not change, and a wider trivial value that takes the generic copy.
    final class Packed {
        enum Mode: UInt8 { case a, b, c }
        var guard0: UInt8 = 0xAA
        var mode = Mode.a
        var flag = false
        var short: Int16 = 0
        var word: Int32 = 0
        var guard1: UInt8 = 0xBB
        var double = 0.0
        var pair = (Int64(0), Int64(0))
        var guard2: UInt8 = 0xCC
    }

    /// The C table is asked about a state through the bits some rule reads: states that
    /// differ only elsewhere share one cached diff and one cached resolution.
    @Test func statesThatDifferOnlyInBitsNoRuleReadsShareTheirCaches() throws {
        final class Target { var text = "off" }
        let resolver = StateResolver(), target = Target()
        try resolver.setValue("on", for: \.text, of: target, when: .containing(.selected))
        try resolver.apply(.selected)
        try resolver.apply(.normal)
        #expect(resolver.value(for: \.text, of: target, in: .selected) == "on")
        let bytes = resolver.cacheBytes
        for other: ControlState in [.focused, .highlighted, [.focused, .highlighted], .disabled] {
            try resolver.apply(other.union(.selected))
            #expect(target.text == "on")
            try resolver.apply(other)
            #expect(target.text == "off")
            #expect(resolver.value(for: \.text, of: target, in: other.union(.selected)) == "on")
        }
        #expect(resolver.cacheBytes == bytes)
    }

    /// Released caches hold no memory and change nothing: every value is the same, state
    /// changes write what they wrote before, and diff again into new caches.
    @Test func releasedCachesHoldNothingAndChangeNothing() throws {
        final class Target { var text = "off", count = 0 }
        let resolver = StateResolver(), target = Target()
        try resolver.setValue("on", for: \.text, of: target, when: .containing(.selected))
        try resolver.setValue(2, for: \.count, of: target, when: .containing(.highlighted))
        try resolver.apply([.selected, .highlighted])
        try resolver.apply(.normal)
        #expect(resolver.cacheBytes > 0)
        resolver.releaseCaches()
        #expect(resolver.cacheBytes == 0)
        #expect(resolver.value(for: \.text, of: target, in: .selected) == "on" && target.text == "off" && target.count == 0)
        for _ in 0..<2 {
            try resolver.apply(.selected)
            #expect(target.text == "on" && target.count == 0)
            try resolver.apply(.highlighted)
            #expect(target.text == "off" && target.count == 2)
            #expect(try resolver.changedProperties(from: .highlighted, to: .selected).count == 2)
            resolver.releaseCaches()
            #expect(resolver.cacheBytes == 0)
        }
    }

    @Test func trivialValuesAreCopiedAsBytesWithoutTouchingTheirNeighbours() throws {
        let resolver = StateResolver()
        let target = Packed()
        try resolver.setValue(.c, for: \.mode, of: target, when: .containing(.selected))
        try resolver.setValue(true, for: \.flag, of: target, when: .containing(.selected))
        try resolver.setValue(-2, for: \.short, of: target, when: .containing(.selected))
        try resolver.setValue(-3, for: \.word, of: target, when: .containing(.selected))
        try resolver.setValue(-4.5, for: \.double, of: target, when: .containing(.selected))
        try resolver.setValue((5, -6), for: \.pair, of: target, when: .containing(.selected))
        for _ in 0..<2 {
            try resolver.apply(.selected)
            #expect(target.mode == .c && target.flag && target.short == -2 && target.word == -3)
            #expect(target.double == -4.5 && target.pair == (5, -6))
            try resolver.apply(.normal)
            #expect(target.mode == .a && !target.flag && target.short == 0 && target.word == 0)
            #expect(target.double == 0 && target.pair == (0, 0))
            #expect((target.guard0, target.guard1, target.guard2) == (0xAA, 0xBB, 0xCC))
        }
    }

    @Test @MainActor func aDeadTargetIsSkippedAndItsRulesPurged() throws {
        let resolver = StateResolver()
        var target: Base? = Base()
        try resolver.setValue(5, for: \.stored, of: target!, when: .containing(.selected))
        weak let weakTarget = target
        target = nil
        #expect(weakTarget == nil)
        // The dead target is skipped and purged; its rules go.
        #expect(try resolver.apply(.selected) == 0)
        #expect(resolver.ruleCount == 0)
        // A new object, perhaps at the same address, is a new target.
        let fresh = Base()
        #expect(resolver.value(for: \.stored, of: fresh, in: .selected) == nil)
    }

    @Test func stateChangesInBitsNoRuleReadsWriteNothingAndMoveTheAppliedState() throws {
        let resolver = StateResolver()
        let target = Base()
        try resolver.setValue(1, for: \.observed, of: target, when: .containing(.selected))
        target.observedWrites = 0
        #expect(try resolver.apply(.highlighted) == 0)
        #expect(resolver.appliedState == .highlighted)
        #expect(try resolver.apply([.highlighted, .selected]) == 1)
        #expect(target.observed == 1 && target.observedWrites == 1)
        // An exactly rule reads every bit.
        try resolver.setValue(2, for: \.observed, of: target, when: .exactly([.selected, .highlighted, .focused], priority: 2000))
        #expect(try resolver.apply([.highlighted, .selected, .focused]) == 1)
        #expect(target.observed == 2)
        // With every rule removed, nothing is sensitive any more.
        resolver.removeAllValues()
        #expect(resolver.applying.sensitiveBits == 0)
    }
}
