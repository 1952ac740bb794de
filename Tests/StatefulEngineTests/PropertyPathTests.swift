import Testing
@testable import StatefulEngine

/// One property reached through key paths from different root types: one binding with the
/// direct property access, which reads which property a key path reaches; two with the
/// portable access, which compares key paths (see "One binding per property").
@Suite("StateResolver: one binding per property")
struct PropertyPathTests {
    final class Label { var text = "" }

    class Base {
        var stored = 0
        var overridden = 0
        let label = Label()
    }

    final class Derived: Base {
        var own = 0
        override var overridden: Int {
            get { super.overridden }
            set { super.overridden = newValue * 10 }
        }
    }

    final class Unrelated { var stored = 0; var other = 0 }

    /// Whether key paths from two roots are merged in this process.
    var merged: Bool { PropertyAccess.current == .direct }

    /// The case: priorities hold across roots with the direct access. With the
    /// portable one each root is a binding of its own, and the value set last wins.
    @Test(arguments: [false, true])
    func prioritiesAcrossRootTypes(baseFirst: Bool) throws {
        let resolver = StateResolver()
        let target = Derived()
        let asBase: Base = target
        func bindBase() throws { try resolver.setValue(1, for: \Base.stored, of: asBase, when: .containing(.disabled, priority: 2000)) }
        func bindDerived() throws {
            try resolver.setValue(2, for: \Derived.stored, of: target, when: .containing(.disabled, priority: 999))
        }
        if baseFirst { try bindBase(); try bindDerived() } else { try bindDerived(); try bindBase() }
        #expect(resolver.bindings.count == (merged ? 1 : 2))
        try resolver.apply(.disabled)
        #expect(target.stored == (merged || !baseFirst ? 1 : 2))
        #expect(resolver.value(for: \Base.stored, of: asBase, in: .disabled) == 1)
        #expect(resolver.value(for: \Derived.stored, of: target, in: .disabled) == (merged ? 1 : 2))
        // Removing through one root removes the property's rules (with the portable access, that
        // root's binding, whose default is written back if it wrote last).
        resolver.removeValues(for: \Derived.stored, of: target)
        resolver.removeValues(for: \Base.stored, of: asBase)
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
        #expect(resolver.bindings.count == (merged ? 2 : 4))
        try resolver.apply(.selected)
        // Merged, the higher priority wins; apart, the binding bound first writes first and the
        // later one last.
        #expect(target.label.text == (merged ? "base" : "derived"))
        #expect(target.overridden == (merged ? 20 : 20))  // the override's setter ran either way
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
