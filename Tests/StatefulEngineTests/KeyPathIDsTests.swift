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

    @Test func oneKeyPathOnTwoClassesIsLookedUpForEach() {
        var ids = KeyPathIDs()
        let base = Base(), derived = Derived()
        let onBase = ids.id(\Base.b, of: base)
        let onDerived = ids.id(\Base.b, of: derived as Base)
        // The same property of two classes: one id (it is one property of the base's layout).
        #expect(onBase == onDerived && ids.count == 1)
    }
}
