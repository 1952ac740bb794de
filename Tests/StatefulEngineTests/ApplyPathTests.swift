import Testing
@testable import StatefulEngine
import CSwiftRuntime

/// The fast paths of apply: direct writes of stored properties, targets held without weak
/// references, and state changes no rule can tell apart.
@Suite("StateResolver: the apply path")
struct ApplyPathTests {
    /// A class others derive from: its properties are stored in place only when `final` (an
    /// overridable property is reached through its accessors, by key paths too).
    class Base {
        final var stored = 0
        var overridable = 0
        var observed = 0 { didSet { observedWrites += 1 } }
        var observedWrites = 0
        var backing = 0
        var computed: Int {
            get { backing }
            set { backing = newValue }
        }
        final var point = (x: 0, y: 0)
        final var child: Child = Child()
    }

    final class Child { var stored = 0 }

    final class Derived: Base {
        var own = "a"
    }

    func address(of object: AnyObject) -> UnsafeMutableRawPointer { Unmanaged.passUnretained(object).toOpaque() }

    /// Writes `box`'s value with `writer`, as an apply does (the box borrowed).
    func write(_ writer: AnyPropertyWriter, to target: AnyObject, _ box: AnyValueBox) {
        withExtendedLifetime(box) { writer.write(address(of: target), ValueSlab.address(of: box)) }
    }

    /// The writer of `keyPath`, after one write of `value` through it.
    func writer<Value>(_ keyPath: ReferenceWritableKeyPath<Derived, Value>, of target: Derived,
                       writing value: Value) -> PropertyWriter<Derived, Value> {
        let writer = PropertyWriter(keyPath, targetClass: Derived.self, box: ValueBox(value))
        write(writer, to: target, ValueBox(value))
        return writer
    }

    @Test func storedPropertiesAreWrittenAtTheirAddressComputedOnesThroughTheirSetter() {
        let target = Derived()
        let stored = writer(\.stored, of: target, writing: 1)
        let own = writer(\.own, of: target, writing: "b")
        let nested = writer(\.point.y, of: target, writing: 7)
        let observed = writer(\.observed, of: target, writing: 2)
        let computed = writer(\.computed, of: target, writing: 3)
        let overridable = writer(\.overridable, of: target, writing: 4)
        let throughChild = writer(\.child.stored, of: target, writing: 5)
        // Each writer read where its key path leads.
        guard case .stored(let storedOffset) = stored.access, case .stored = own.access,
              case .stored(let nestedOffset) = nested.access else {
            Issue.record("stored properties: \(stored.access), \(own.access), \(nested.access)")
            return
        }
        #expect(storedOffset != nestedOffset)
        for setter in [observed.access, computed.access, overridable.access] {
            guard case .setter = setter else { Issue.record("not a setter: \(setter)"); continue }
        }
        #expect(throughChild.access == .throughKeyPath)
        #expect(target.stored == 1 && target.own == "b" && target.point == (0, 7) && target.observed == 2
                && target.observedWrites == 1 && target.computed == 3 && target.overridable == 4 && target.child.stored == 5)
        // Later writes land in the same properties, observers run.
        write(stored, to: target, ValueBox(10))
        write(own, to: target, ValueBox("c"))
        write(nested, to: target, ValueBox(70))
        write(observed, to: target, ValueBox(20))
        write(computed, to: target, ValueBox(30))
        #expect(target.stored == 10 && target.own == "c" && target.point == (0, 70))
        #expect(target.observed == 20 && target.observedWrites == 2 && target.computed == 30)
        // A direct write releases the value it replaces; a setter's caller keeps its value.
        weak var released: Derived?
        do {
            let holder = HolderOfObject()
            let objectWriter = PropertyWriter(\HolderOfObject.object, targetClass: HolderOfObject.self, box: ValueBox<Derived?>(nil))
            let first = Derived()
            released = first
            write(objectWriter, to: holder, ValueBox<Derived?>(first))
            write(objectWriter, to: holder, ValueBox<Derived?>(Derived()))
            guard case .stored = objectWriter.access else { Issue.record("\(objectWriter.access)"); return }
            let box = ValueBox<Derived?>(Derived())
            let setterWriter = PropertyWriter(\HolderOfObject.observed, targetClass: HolderOfObject.self, box: ValueBox<Derived?>(nil))
            write(setterWriter, to: holder, box)
            write(setterWriter, to: holder, ValueBox<Derived?>(nil))
            #expect(box.value != nil && holder.observed == nil && holder.observations == 2)
        }
        #expect(released == nil)
    }

    /// Stored values of every size the writer copies as bytes, packed between neighbours that
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

    /// A class that overrides a property: the base's key path calls the override's setter.
    final class Overriding: Base {
        override var overridable: Int {
            get { super.overridable }
            set { super.overridable = newValue + 100 }
        }
    }

    @Test func aSetterThroughTheBaseClassKeyPathIsTheOverride() {
        let target = Overriding()
        let writer = PropertyWriter(\Base.overridable, targetClass: Overriding.self, box: ValueBox(0))
        write(writer, to: target, ValueBox(1))
        #expect(target.overridable == 101)
        guard case .setter = writer.access else { Issue.record("\(writer.access)"); return }
    }

    final class HolderOfObject {
        var object: Derived?
        var observed: Derived? { didSet { observations += 1 } }
        var observations = 0
    }

    @Test @MainActor func aTargetIsSeenDeadWithoutAWeakReference() throws {
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

    /// Reports, from its deinit, whether the runtime check sees it deallocating.
    final class DeinitProbe {
        let report: (Bool) -> Void
        init(report: @escaping (Bool) -> Void) { self.report = report }
        deinit {
            let address = Unmanaged.passUnretained(self).toOpaque()
            report(isDeallocating(address) && swift_isDeallocating(address))
        }
    }

    /// The liveness check reads the reference counts inline, or through the side table a weak
    /// reference gives the object; both must agree with the runtime.
    @Test(arguments: [false, true])
    func theLivenessCheckSeesDeinitialisationWithAndWithoutASideTable(weaklyReferenced: Bool) {
        nonisolated(unsafe) var seenInDeinit: Bool?
        var probe: DeinitProbe? = DeinitProbe { seenInDeinit = $0 }
        weak var weakProbe: DeinitProbe?
        if weaklyReferenced { weakProbe = probe }
        let address = Unmanaged.passUnretained(probe!).toOpaque()
        #expect(!isDeallocating(address))
        #expect(isDeallocating(address) == swift_isDeallocating(address))
        probe = nil
        #expect(seenInDeinit == true && weakProbe == nil)
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
        #expect(resolver.sensitiveBits == 0)
    }
}
