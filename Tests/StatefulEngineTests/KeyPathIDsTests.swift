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

    class GenericBase<T> {
        var value: T
        init(_ value: T) { self.value = value }
    }
    final class Concrete: GenericBase<Int> {
        override var value: Int {
            get { super.value }
            set { super.value = newValue }
        }
        init() { super.init(0) }
    }

    /// The third case compared as key paths (the engine's documentation, "One binding per
    /// property"): an override of a generic base class's property by a subclass that fixes its
    /// type, which the base's vtable reaches through a reabstraction thunk. Two ids, with
    /// either access: each key path is a binding of its own.
    @Test func anOverrideOfAGenericBasesPropertyIsComparedAsAKeyPath() {
        var ids = KeyPathIDs()
        let target = Concrete()
        let viaConcrete = ids.id(\Concrete.value, of: target)
        let viaBase = ids.id(\GenericBase<Int>.value, of: target as GenericBase<Int>)
        #expect(viaConcrete != viaBase && ids.count == 2)
    }

    final class Inner { var x = 0 }
    final class Outer { let inner = Inner() }

    /// `\Outer.inner.x`, made as a new object at each call (by appending).
    static func madeAnew() -> ReferenceWritableKeyPath<Outer, Int> {
        (\Outer.inner as KeyPath<Outer, Inner>).appending(path: \Inner.x as ReferenceWritableKeyPath<Inner, Int>)
    }

    /// Equal key paths made as new objects are one property: the resolver holds one id, and
    /// keeps a bounded number of the objects (the process's catalog too: see
    /// KeyPathCatalogTests). A few dozen new objects only: the tests running beside these share
    /// the process's catalog, which starts again past 1,024 key paths.
    @Test func equalKeyPathObjectsShareAnIdAndTheKeyPathsSeenStayBounded() {
        var ids = KeyPathIDs()
        let target = Outer()
        let literal = ids.id(\Outer.inner.x, of: target)
        #expect(Self.madeAnew() !== Self.madeAnew() && Self.madeAnew() == \Outer.inner.x)
        for _ in 0..<30 { #expect(ids.id(Self.madeAnew(), of: target) == literal) }
        #expect(ids.count == 1 && ids.seenKeyPaths <= 20)
        // Found for a key path object never seen, without numbering it.
        #expect(ids.existingID(Self.madeAnew(), rootClass: Outer.self) == literal)
        #expect(ids.existingID(\Outer.inner, rootClass: Outer.self) == nil && ids.count == 1)
    }

    final class Wide {
        var p0 = 0, p1 = 0, p2 = 0, p3 = 0, p4 = 0, p5 = 0, p6 = 0, p7 = 0, p8 = 0, p9 = 0, p10 = 0, p11 = 0
        let inner = Inner()
    }

    /// Past a few key paths they are looked up rather than searched: the ids stay what they
    /// were, new key paths to numbered properties find them, and made-anew objects stay bounded.
    @Test func manyKeyPathsKeepTheirIdsOnceIndexed() {
        var ids = KeyPathIDs()
        let target = Wide()
        let keyPaths: [ReferenceWritableKeyPath<Wide, Int>] = [
            \.p0, \.p1, \.p2, \.p3, \.p4, \.p5, \.p6, \.p7, \.p8, \.p9, \.p10, \.inner.x,
        ]
        let first = keyPaths.map { ids.id($0, of: target) }
        #expect(first == (0..<12).map(UInt32.init) && ids.count == 12 && ids.seenKeyPaths > KeyPathIDs.indexedBeyond)
        #expect(keyPaths.map { ids.id($0, of: target) } == first)
        #expect(keyPaths.map { ids.existingID($0, rootClass: Wide.self) } == first)
        // A new object of a numbered property (made by appending): its id.
        func madeAnew() -> ReferenceWritableKeyPath<Wide, Int> {
            (\Wide.inner as KeyPath<Wide, Inner>).appending(path: \Inner.x as ReferenceWritableKeyPath<Inner, Int>)
        }
        #expect(madeAnew() !== madeAnew())
        for _ in 0..<60 { #expect(ids.id(madeAnew(), of: target) == 11) }
        #expect(ids.count == 12 && ids.seenKeyPaths <= 4 * 12 + 16)
        #expect(keyPaths.map { ids.id($0, of: target) } == first)
        // The ids are a value: a copy that numbers a property has an index of its own.
        var copy = ids
        #expect(copy.id(\Wide.p11, of: target) == 12 && copy.existingID(\Wide.p11, rootClass: Wide.self) == 12)
        #expect(ids.existingID(\Wide.p11, rootClass: Wide.self) == nil && ids.count == 12)
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

/// The process's key path catalog: bounded, and the first writer recorded for a key path on a
/// class is the one every binding shares.
@Suite("StateResolver parts: KeyPathCatalog")
struct KeyPathCatalogTests {
    final class Shared { var pair = (first: 0, second: 0) }

    /// `\Shared.pair.second`, a new object at each call.
    static func madeAnew() -> ReferenceWritableKeyPath<Shared, Int> {
        let head: ReferenceWritableKeyPath<Shared, (first: Int, second: Int)> = \.pair
        return head.appending(path: \(first: Int, second: Int).second)
    }

    /// Key paths made anew are new keys: past its limit the catalog starts again, and hands
    /// what it dropped to the caller (released once the lock is).
    @Test func theCatalogStartsAgainPastItsLimit() {
        var catalog = KeyPathCatalog(limit: 4)
        var counts: [Int] = [], dropped: [Int] = []
        var keys: [KeyPathFromClass] = []
        for _ in 0..<6 {
            let keyPath = Self.madeAnew()
            let known = KnownKeyPath(KeyPathFromClass(keyPath, on: Shared.self), property: PropertyPath(keyPath, valueType: Int.self))
            dropped.append(catalog.insert(known).count)
            #expect(catalog[known.key] === known)
            keys.append(known.key)
            counts.append(catalog.entries.count)
        }
        #expect(counts == [1, 2, 3, 4, 1, 2] && dropped == [0, 0, 0, 0, 4, 0])
        #expect(catalog[keys[0]] == nil && catalog[keys[5]] != nil)
    }

    /// Two threads may make a writer for one key path: the first shared is kept and returned.
    @Test func theFirstWriterSharedIsKept() {
        let keyPath = Self.madeAnew()
        let known = KnownKeyPath(KeyPathFromClass(keyPath, on: Shared.self), property: PropertyPath(keyPath, valueType: Int.self))
        let first = AnyPropertyWriter(keyPath: keyPath, trivialCopy: nil)
        let second = AnyPropertyWriter(keyPath: keyPath, trivialCopy: nil)
        #expect(KeyPathCatalog.writer(of: known) == nil)
        #expect(KeyPathCatalog.share(first, for: known) === first)
        #expect(KeyPathCatalog.share(second, for: known) === first && KeyPathCatalog.writer(of: known) === first)
    }

    /// A path through another object, made as a new object at each call: both accesses write it
    /// through the caller's setter or the key path.
    final class Inner { var count = 0 }
    final class Holder { let inner = Inner() }
    static func innerCount() -> ReferenceWritableKeyPath<Holder, Int> {
        (\Holder.inner as KeyPath<Holder, Inner>).appending(path: \Inner.count as ReferenceWritableKeyPath<Inner, Int>)
    }

    /// A caller's accessor stays in its resolver: another resolver binding the same key path
    /// (one the direct access does not write itself: a path through another object) writes
    /// with an accessor of its own caller's, and a resolver's later bindings reuse its own.
    @Test func aCallersAccessorIsItsResolvers() throws {
        let keyPath = Self.innerCount()
        let (first, second) = (StateResolver(), StateResolver())
        let (a, b, b2) = (Holder(), Holder(), Holder())
        try first.setValue(1, for: keyPath, of: a, when: .containing(.selected))
        try second.setValue(2, for: keyPath, of: b, when: .containing(.selected))
        let firstWriter = try #require(first.binding(keyPath, of: a)?.writer)
        let secondWriter = try #require(second.binding(keyPath, of: b)?.writer)
        #expect(firstWriter.route == .callersSetter && secondWriter.route == .callersSetter && firstWriter !== secondWriter)
        try second.setValue(2, for: keyPath, of: b2, when: .containing(.selected))
        #expect(second.binding(keyPath, of: b2)?.writer === secondWriter)
        for resolver in [first, second] { try resolver.apply(.selected) }
        #expect(a.inner.count == 1 && b.inner.count == 2 && b2.inner.count == 2)
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
            _ = ids.id(\Base.a, of: target)
            return ids.writer(\Base.a, of: target, box: ValueBox(target.a), accessors: KeyPathAccessors { \Base.a })
        }
        #expect(writers[0] === writers[1])
        // Another class may lay the property out or override it differently: its own writer.
        #expect(writers[0] !== writers[2])
    }

    /// Resolvers share the writer of a key path on a class that holds nothing of a caller (the
    /// direct access's; the portable access's hold the caller's setter: one per resolver).
    @Test func resolversShareWritersThatHoldNothingOfACaller() throws {
        final class Target { var value = 0 }
        let (first, second) = (StateResolver(), StateResolver())
        let (a, b) = (Target(), Target())
        try first.setValue(1, for: \.value, of: a, when: .containing(.selected))
        try second.setValue(2, for: \.value, of: b, when: .containing(.selected))
        let writers = try [first.binding(\Target.value, of: a), second.binding(\Target.value, of: b)].map { try #require($0?.writer) }
        let direct = PropertyAccess.current == .direct
        #expect(writers[0].route == (direct ? .layout : .callersSetter) && (writers[0] === writers[1]) == direct)
        try first.apply(.selected)
        try second.apply(.selected)
        #expect(a.value == 1 && b.value == 2)
    }

    @Test func aResolversBindingsOfOneKeyPathShareItsWriter() throws {
        let resolver = StateResolver()
        let targets = (0..<3).map { _ in Base() }
        for target in targets { try resolver.setValue(1, for: \.a, of: target, when: .containing(.selected)) }
        let writers = targets.compactMap { resolver.binding(\.a, of: $0)?.writer }
        #expect(writers.count == 3 && writers.allSatisfy { $0 === writers[0] })
    }
}
