import CStateResolver
import Testing
@testable import StatefulEngine

/// The resolver's value slab: small trivial values held inline (their bytes in the entry),
/// others boxed; versions that say which; boxes released only through the drain; and the
/// resolver's queries and writes of inline values.
@Suite("StateResolver parts: ValueSlab")
struct ValueSlabTests {
    struct TwoHalves: Equatable { var low: Int32, high: Int32 }  // 8 bytes, aligned to 4
    enum Mode: Equatable { case off, on, auto }
    struct Wide: Equatable { var a: Int, b: Int }  // 16 bytes: boxed
    final class Reference {}

    @Test func smallTrivialValuesAreInlineAndTheRestBoxed() {
        #expect(RuleValue(42).box == nil && RuleValue(42).bits == 42)
        #expect(RuleValue(true).box == nil && RuleValue(true).bits == 1)
        #expect(RuleValue(1.5).box == nil && RuleValue(1.5).bits == (1.5).bitPattern)
        #expect(RuleValue(Int8(-1)).box == nil && RuleValue(Int8(-1)).bits == 0xFF)  // the rest zero
        #expect(RuleValue(TwoHalves(low: 1, high: 2)).box == nil)
        #expect(RuleValue(Mode.auto).box == nil)
        #expect(RuleValue(Optional(Int32(7))).box == nil)
        #expect(RuleValue("text").box?.value == "text" && RuleValue("text").bits == 0)
        #expect(RuleValue(Wide(a: 1, b: 2)).box?.value == Wide(a: 1, b: 2))
        let reference = Reference()
        #expect(RuleValue(reference).box?.value === reference)
        #expect(RuleValue(Optional(reference)).box != nil)
        // An inline value boxed again (for a writer's making) keeps its value.
        #expect(RuleValue(TwoHalves(low: -3, high: 9)).boxed.value == TwoHalves(low: -3, high: 9))
    }

    @Test func versionsSayWhichValuesAreInlineAndHandlesAreReused() throws {
        var slab = ValueSlab()
        let inline = try slab.insert(nil, inline: 42), boxed = try slab.insert(ValueBox("x"), inline: 0)
        #expect(inline != boxed && slab.count == 2)
        #expect(ValueSlab.isInline(slab.version(inline)) && !ValueSlab.isInline(slab.version(boxed)))
        #expect(slab.word(inline) == 42)
        #expect(slab.version(inline) & ~(1 << 63) < slab.version(boxed))  // one counter for both
        // A freed inline value releases nothing; its handle is reused with a new version.
        let version = slab.version(inline)
        slab.remove(inline)
        #expect(!slab.hasReleased && slab.count == 1)
        let again = try slab.insert(nil, inline: 7)
        #expect(again == inline && slab.version(again) != version && slab.word(again) == 7)
    }

    @Test func onlyBoxesGoThroughTheDrain() throws {
        var slab = ValueSlab()
        weak var released: ValueBox<String>?
        let handle: csr_value
        do {
            let box = ValueBox("boxed")
            released = box
            handle = try slab.insert(box, inline: 0)
        }
        #expect(released != nil)  // the slab holds it
        slab.remove(handle)
        #expect(slab.hasReleased && released != nil)  // held until the drain
        #expect(slab.popReleased() === released)  // released when the caller lets go
        #expect(!slab.hasReleased && released == nil)
        // removeAll returns the entries: only the boxed ones are released.
        do {
            let box = ValueBox("all")
            released = box
            _ = try slab.insert(box, inline: 0)
            _ = try slab.insert(nil, inline: 3)
        }
        let entries = slab.removeAll()
        #expect(entries.count == 2 && entries.filter { $0.box != nil }.count == 1 && released != nil)
        ValueSlab.release(entries)
        #expect(released == nil && slab.count == 0)
    }

    @Test func aSourceGivesTheValueOfEachKind() {
        let offsets = ValueOffsets.table(inBox: 16, inBinding: 48)
        var bits = RuleValue(TwoHalves(low: 5, high: -6)).bits
        withUnsafeBytes(of: &bits) { bytes in
            let source = ValueSource(inlineAt: bytes.baseAddress!)
            #expect(source.value(as: TwoHalves.self) == TwoHalves(low: 5, high: -6))
            #expect(source.address(in: offsets) == bytes.baseAddress!)
        }
        let box = ValueBox(Wide(a: 3, b: 4))
        let boxSource = ValueSource(box: box)
        #expect(boxSource.value(as: Wide.self) == Wide(a: 3, b: 4))
        #expect(boxSource.address(in: offsets) == ValueSlab.address(of: box) + 16)
        withExtendedLifetime(box) {}
    }

    final class Target {
        var count = 0
        var mode = Mode.off
        var halves = TwoHalves(low: 0, high: 0)
        var onCount: ((Int) -> Void)?
        var observed = 0 { didSet { onCount?(observed) } }
    }

    /// Inline values through the resolver: written, queried (boxed again with the binding's
    /// type), explained and linted like boxed ones.
    @Test func theResolverWritesAndReportsInlineValues() throws {
        let resolver = StateResolver()
        let target = Target()
        try resolver.setValue(3, for: \.count, of: target, when: .containing(.selected))
        try resolver.setValue(Mode.auto, for: \.mode, of: target, when: .containing(.selected))
        try resolver.setValue(TwoHalves(low: 1, high: -1), for: \.halves, of: target, when: .containing(.highlighted))
        try resolver.apply([.selected, .highlighted])
        #expect(target.count == 3 && target.mode == .auto && target.halves == TwoHalves(low: 1, high: -1))
        #expect(resolver.value(for: \.count, of: target, in: .selected) == 3)
        #expect(resolver.value(for: \.halves, of: target, in: .highlighted) == TwoHalves(low: 1, high: -1))
        let explanation = resolver.explain(\.mode, of: target, in: .selected)
        #expect(explanation.candidates.map(\.value) == [.auto] && explanation.defaultValue == .off)
        try resolver.apply(.normal)
        #expect(target.count == 0 && target.mode == .off && target.halves == TwoHalves(low: 0, high: 0))
        // A rule whose inline value is the default's: linted as never changing the property.
        try resolver.setValue(0, for: \.count, of: target, when: .containing(.focused))
        resolver.removeValue(for: \.count, of: target, when: .containing(.selected))
        let problems = try resolver.lintRules(reachableStates: [.normal, .focused]).filter { $0.keyPath.hasSuffix(".count") }
        #expect(problems.map(\.problem) == [.alwaysDefault] && problems.first?.value == "0")
    }

    /// A setter that binds many values while an inline value is written: the slab's storage
    /// moves while the write runs (it writes from a copy; ASan, `make sanitize`, checks the
    /// memory), and every property ends with its resolved value.
    @Test func aSetterThatGrowsTheSlabWhileAnInlineValueIsWritten() throws {
        let resolver = StateResolver()
        let target = Target(), others = (0..<1000).map { _ in Target() }
        try resolver.setValue(7, for: \.observed, of: target, when: .containing(.selected))
        target.onCount = { _ in
            for (index, other) in others.enumerated() {
                try? resolver.setValue(index, for: \.count, of: other, when: .containing(.focused))
            }
            target.onCount = nil
        }
        try resolver.apply(.selected)
        #expect(target.observed == 7 && resolver.ruleCount == 1001)
        try resolver.apply([.selected, .focused])
        #expect(target.observed == 7 && others.enumerated().allSatisfy { $0.element.count == $0.offset })
    }

    final class Counted {
        nonisolated(unsafe) static var released = 0
        deinit { Self.released += 1 }
    }

    final class Holder { var counted: Counted?, number = 0 }

    /// A resolver that goes releases every value it holds (boxed ones; inline ones hold
    /// nothing), once, custom rules' included.
    @Test func aResolverThatGoesReleasesItsValuesOnce() throws {
        Counted.released = 0
        let holder = Holder()
        weak var weakResolver: StateResolver?
        do {
            let resolver = StateResolver()
            weakResolver = resolver
            for priority: Int32 in 1...3 {
                try resolver.setValue(Counted(), for: \.counted, of: holder, when: .containing(.selected, priority: priority))
                try resolver.setValue(Int(priority), for: \.number, of: holder, when: .containing(.focused, priority: priority))
            }
            try resolver.setValue(Counted(), for: \.counted, of: holder, when: .custom("odd", priority: 9) { $0.rawValue & 1 == 1 })
            #expect(Counted.released == 0)
        }
        #expect(weakResolver == nil && Counted.released == 4)
    }
}
