import Testing
@testable import StatefulEngine

/// The resolver's key path ids: one per property, numbered from 0 in the order first seen, and
/// shared by key paths from different root types with the direct property access (see
/// PropertyPathTests for what one binding per property means for rules).
@Suite("StateResolver parts: KeyPathIDs")
struct KeyPathIDsTests {
    class Base { var a = 0; var b = "" }
    final class Derived: Base { var c = 0.0 }

    @Test func propertiesAreNumberedInTheOrderFirstSeen() {
        var ids = KeyPathIDs()
        let target = Derived()
        let numbered = [
            ids.id(\Derived.b, of: target), ids.id(\Derived.c, of: target),
            ids.id(\Derived.b, of: target), ids.id(\Derived.a, of: target),
        ]
        #expect(numbered == [0, 1, 0, 2] && ids.count == 3)
    }

    @Test func keyPathsFromTwoRootsShareTheirPropertysIdWithTheDirectAccess() {
        var ids = KeyPathIDs()
        let target = Derived()
        let viaDerived = ids.id(\Derived.a, of: target)
        let viaBase = ids.id(\Base.a, of: target as Base)
        #expect((viaDerived == viaBase) == (PropertyAccess.current == .direct))
        #expect(ids.count == (PropertyAccess.current == .direct ? 1 : 2))
    }

    final class Inner { var x = 0 }
    final class Outer { let inner = Inner() }

    /// `\Outer.inner.x`, made as a new object at each call (by appending).
    static func madeAnew() -> ReferenceWritableKeyPath<Outer, Int> {
        (\Outer.inner as KeyPath<Outer, Inner>).appending(path: \Inner.x as ReferenceWritableKeyPath<Inner, Int>)
    }

    @Test func equalKeyPathObjectsShareAnIdAndTheCacheStaysBounded() {
        var ids = KeyPathIDs()
        let target = Outer()
        let literal = ids.id(\Outer.inner.x, of: target)
        #expect(Self.madeAnew() !== Self.madeAnew() && Self.madeAnew() == \Outer.inner.x)
        for _ in 0..<1_000 { #expect(ids.id(Self.madeAnew(), of: target) == literal) }
        #expect(ids.count == 1 && ids.cachedKeyPaths <= 20)
        // Found for a key path object never seen, without numbering it.
        #expect(ids.existingID(Self.madeAnew(), rootClass: Outer.self) == literal)
        #expect(ids.existingID(\Outer.inner, rootClass: Outer.self) == nil && ids.count == 1)
    }

    @Test func oneKeyPathOnTwoClassesIsLookedUpForEach() {
        var ids = KeyPathIDs()
        let base = Base(), derived = Derived()
        let onBase = ids.id(\Base.b, of: base)
        let onDerived = ids.id(\Base.b, of: derived as Base)
        // The same property of two classes: one id (it is one property of the base's layout).
        #expect(onBase == onDerived && ids.count == 1)
    }
}

/// A key path's writer is made once per class and shared by every binding of it.
@Suite("StateResolver parts: KeyPathIDs writers")
struct KeyPathIDsWriterTests {
    class Base { var a = 0 }
    final class Derived: Base {}

    @Test func bindingsOfOneKeyPathOnOneClassShareItsWriter() {
        var ids = KeyPathIDs()
        let first = Base(), second = Base(), derived = Derived()
        let writers = [first, second, derived].map { target in
            ids.property(\Base.a, of: target).writer ?? ids.makeWriter(\Base.a, of: target, box: ValueBox(target.a))
        }
        #expect(ids.property(\Base.a, of: derived).writer === writers[2])
        #expect(writers[0] === writers[1])
        // Another class may lay the property out or override it differently: its own writer.
        #expect(writers[0] !== writers[2])
    }

    @Test func aResolversBindingsOfOneKeyPathShareItsWriter() throws {
        let resolver = StateResolver()
        let targets = (0..<3).map { _ in Base() }
        for target in targets { try resolver.setValue(1, for: \.a, of: target, when: .containing(.selected)) }
        let writers = targets.compactMap { resolver.binding(\.a, of: $0)?.writer }
        #expect(writers.count == 3 && writers.allSatisfy { $0 === writers[0] })
    }
}
