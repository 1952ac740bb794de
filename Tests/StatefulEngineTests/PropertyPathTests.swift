import Testing
@testable import StatefulEngine

/// One property reached through key paths from different root types is one binding.
@Suite("StateResolver: one binding per property, whatever the key path's root")
struct PropertyPathTests {
    final class Label { var text = "" }

    class Base {
        var stored = 0                       // overridable: reached through accessors
        final var finalStored = 0            // stored in place
        var observed = 0 { didSet {} }
        final var finalComputed: Int {
            get { finalStored }
            set { finalStored = newValue }
        }
        var overridden = 0
        let label = Label()
        final var point = (x: 0, y: 0)
        var items = [0, 0]
    }

    final class Derived: Base {
        var own = 0
        override var overridden: Int {
            get { super.overridden }
            set { super.overridden = newValue * 10 }
        }
        override var observed: Int { didSet { observedWrites += 1 } }
        var observedWrites = 0
    }

    final class Unrelated { var stored = 0; var other = 0 }

    /// The property `keyPath` leads to from a `Derived`.
    func path<Root, Value>(_ keyPath: ReferenceWritableKeyPath<Root, Value>) -> PropertyPath {
        PropertyPath(keyPath, valueType: Value.self, rootClass: Derived.self)
    }

    @Test func keyPathsFromASubclassLeadToTheSamePropertyAsFromItsBase() {
        #expect(path(\Base.stored) == path(\Derived.stored))
        #expect(path(\Base.finalStored) == path(\Derived.finalStored))
        #expect(path(\Base.observed) == path(\Derived.observed))
        #expect(path(\Base.finalComputed) == path(\Derived.finalComputed))
        #expect(path(\Base.overridden) == path(\Derived.overridden))
        #expect(path(\Base.label.text) == path(\Derived.label.text))
        #expect(path(\Base.point.y) == path(\Derived.point.y))
        for property in [path(\Base.stored), path(\Base.finalStored), path(\Base.observed), path(\Base.label.text),
                         path(\Base.point.y)] {
            #expect(property.isCanonical)
        }
    }

    @Test func differentPropertiesStayApart() {
        let all = [path(\Base.stored), path(\Base.finalStored), path(\Base.observed), path(\Base.finalComputed),
                   path(\Base.overridden), path(\Derived.own), path(\Base.point.x), path(\Base.point.y),
                   path(\Base.label.text), path(\Label.text)]
        #expect(Set(all).count == all.count)
        // A subscript with an argument is compared as a key path: same index, same path.
        #expect(!path(\Base.items[0]).isCanonical)
        #expect(path(\Base.items[0]) == path(\Base.items[0]))
        #expect(path(\Base.items[0]) != path(\Base.items[1]))
    }

    /// The case: priorities hold across roots. Before, each root had its own binding
    /// and the one set last wrote last.
    @Test(arguments: [false, true])
    func prioritiesHoldAcrossRootTypes(baseFirst: Bool) throws {
        let resolver = StateResolver()
        let target = Derived()
        let asBase: Base = target
        func bindBase() throws { try resolver.setValue(1, for: \Base.stored, of: asBase, when: .containing(.disabled, priority: 2000)) }
        func bindDerived() throws { try resolver.setValue(2, for: \Derived.stored, of: target, when: .containing(.disabled, priority: 999)) }
        if baseFirst { try bindBase(); try bindDerived() } else { try bindDerived(); try bindBase() }
        #expect(resolver.bindings.count == 1)
        try resolver.apply(.disabled)
        #expect(target.stored == 1)
        #expect(resolver.value(for: \Derived.stored, of: target, in: .disabled) == 1)
        #expect(resolver.value(for: \Base.stored, of: asBase, in: .disabled) == 1)
        // Removing through one root removes the property's rules.
        resolver.removeValues(for: \Derived.stored, of: target)
        #expect(resolver.bindings.isEmpty && target.stored == 0)
    }

    /// `Derived` is final: its key paths call its overrides directly, the base's go through the
    /// vtable; both are the override on a `Derived`.
    @Test func aNestedPathAndOverriddenAccessorsThroughTwoRoots() throws {
        let resolver = StateResolver()
        let target = Derived()
        try resolver.setValue("base", for: \Base.label.text, of: target, when: .containing(.selected, priority: 1000))
        try resolver.setValue("derived", for: \Derived.label.text, of: target, when: .containing(.selected, priority: 900))
        try resolver.setValue(1, for: \Derived.overridden, of: target, when: .containing(.selected, priority: 900))
        try resolver.setValue(2, for: \Base.overridden, of: target, when: .containing(.selected, priority: 1000))
        #expect(resolver.bindings.count == 2)
        try resolver.apply(.selected)
        #expect(target.label.text == "base")
        #expect(target.overridden == 20)  // the override's setter ran
    }

    @Test func equalOffsetsInUnrelatedClassesAreDifferentTargetsProperties() throws {
        let resolver = StateResolver()
        let a = Unrelated(), b = Derived()
        try resolver.setValue(5, for: \Unrelated.stored, of: a, when: .containing(.selected))
        try resolver.setValue(6, for: \Derived.own, of: b, when: .containing(.selected))
        try resolver.setValue(7, for: \Unrelated.other, of: a, when: .containing(.selected))
        try resolver.apply(.selected)
        #expect((a.stored, a.other, b.own) == (5, 7, 6))
    }
}
