// A resolver's part that numbers bound properties: one id per property (see PropertyPath),
// whatever the key path's root type, and keeps each key path's writer; what a key path leads
// to, and the writers resolvers share, the process knows (see KeyPathCatalog).

/// The ids of the properties a resolver's key paths lead to, numbered from 0 in the order
/// they are first seen; key paths from different root types to one property share an id.
///
/// Which property a key path leads to comes from the process's ``KeyPathCatalog``: a resolver
/// keeps, for each key path object it has seen on a class, a reference to what the catalog
/// knows of it, its writer once a binding needed one, and its property's id — 24 bytes in one
/// array while there are a few (a control's two key paths: one allocation of 80 bytes); past
/// ``indexedBeyond``, hash indexes by key and by property beside it.
struct KeyPathIDs {
    private struct Seen {
        let known: KnownKeyPath
        var writer: AnyPropertyWriter?
        let id: UInt32
    }

    /// In the order first seen.
    private var seen: ContiguousArray<Seen> = []
    /// Positions in ``seen`` by key, and ids by property, once there are more than
    /// ``indexedBeyond`` key paths. (A class, one word while there is none; copied when a copy
    /// of the ids changes.)
    private var index: Index?

    private final class Index {
        var byKey: [KeyPathFromClass: Int]
        var byProperty: [PropertyPath: UInt32]

        init(_ byKey: [KeyPathFromClass: Int], _ byProperty: [PropertyPath: UInt32]) { (self.byKey, self.byProperty) = (byKey, byProperty) }
    }

    /// The number of properties numbered.
    private(set) var count = 0
    /// The position ``id(_:of:)`` found last: a bind asks for the writer of that key path next.
    private var lastPosition = 0

    /// Searched in order up to this many key paths, looked up beyond.
    static var indexedBeyond: Int { 8 }

    /// The number of key path objects seen (at most four times the properties, plus 16).
    var seenKeyPaths: Int { seen.count }

    /// The id of the property `keyPath` leads to from `target`, numbering it when it is new.
    ///
    /// - Complexity: O(1) for a key path seen (a search of at most ``indexedBeyond``, or a
    ///   lookup); else a lookup in the ``KeyPathCatalog`` too.
    mutating func id<Target: AnyObject, Value>(_ keyPath: ReferenceWritableKeyPath<Target, Value>, of target: Target) -> UInt32 {
        let rootClass: AnyClass = type(of: target)
        if let position = position(of: keyPath, rootClass: ObjectIdentifier(rootClass)) {
            lastPosition = position
            return seen[position].id
        }
        let (known, writer) = KeyPathCatalog.known(keyPath, valueType: Value.self, rootClass: rootClass)
        defer { lastPosition = seen.count - 1 }
        return see(known, writer: writer)
    }

    /// The writer of `keyPath` (whose id was asked for) on `target`'s class, for a binding made
    /// by a caller with `accessors` (see ``KeyPathAccessors``); `box` gives any box of the values
    /// it writes, asked for only when a writer is made (boxing an inline value allocates).
    ///
    /// The one this resolver holds, else the process's, else made (and shared, unless it is the
    /// caller's accessor).
    mutating func writer<Target: AnyObject, Value>(
        _ keyPath: ReferenceWritableKeyPath<Target, Value>, of target: Target, box: @autoclosure () -> ValueBox<Value>,
        accessors: KeyPathAccessors<Target, Value>
    ) -> AnyPropertyWriter {
        let rootClass: AnyClass = type(of: target)
        let position = knownPosition(of: keyPath, rootClass: rootClass)
        if let writer = seen[position].writer { return writer }
        let known = seen[position].known
        if let writer = KeyPathCatalog.writer(of: known) {
            seen[position].writer = writer
            return writer
        }
        let made = processStrategy.writer(keyPath, targetClass: rootClass, box: box(), accessors: accessors)
        let writer = made.route == .callersSetter ? made : KeyPathCatalog.share(made, for: known)
        // Found again: making a writer runs no user code today, but a bind from it would move entries.
        seen[knownPosition(of: keyPath, rootClass: rootClass)].writer = writer
        return writer
    }

    /// The id of the property `keyPath` leads to from a target of `rootClass`, when that
    /// property was numbered (by ``id(_:of:)``, through this key path or an equal one); nil
    /// otherwise. Numbers nothing, and records nothing in the ``KeyPathCatalog``.
    ///
    /// - Complexity: O(1) for a key path seen; else a lookup in the ``KeyPathCatalog`` (or
    ///   reading the key path) and O(1) here.
    func existingID(_ keyPath: AnyKeyPath, rootClass: AnyClass) -> UInt32? {
        if let position = position(of: keyPath, rootClass: ObjectIdentifier(rootClass)) { return seen[position].id }
        func known<Value>(valueType: Value.Type) -> KnownKeyPath {
            KeyPathCatalog.known(keyPath, valueType: valueType, rootClass: rootClass, record: false).known
        }
        return id(of: _openExistential(type(of: keyPath).valueType, do: known).property)
    }

    // MARK: The key paths seen

    /// The position in ``seen`` of `keyPath` on `rootClass`.
    private func position(of keyPath: AnyKeyPath, rootClass: ObjectIdentifier) -> Int? {
        if let index { return index.byKey[KeyPathFromClass(keyPath, rootClass)] }
        return seen.firstIndex { $0.known.key.keyPath === keyPath && $0.known.key.rootClass == rootClass }
    }

    /// The position of a key path whose id was asked for (the last one, usually).
    private func knownPosition(of keyPath: AnyKeyPath, rootClass: AnyClass) -> Int {
        if lastPosition < seen.count, seen[lastPosition].known.key == KeyPathFromClass(keyPath, on: rootClass) { return lastPosition }
        guard let position = position(of: keyPath, rootClass: ObjectIdentifier(rootClass)) else {
            internalInconsistency("KeyPathIDs: a writer asked for before the key path's id")
        }
        return position
    }

    /// The id of `property`, if numbered.
    private func id(of property: PropertyPath) -> UInt32? {
        if let index { return index.byProperty[property] }
        return seen.first { $0.known.property == property }?.id
    }

    /// Adds `known`, not seen yet, and returns its property's id (numbering it when new).
    /// Key paths made anew at each evaluation would each add one: once there are four times
    /// the properties (plus 16), only the first seen of each property is kept.
    private mutating func see(_ known: KnownKeyPath, writer: AnyPropertyWriter?) -> UInt32 {
        let existing = id(of: known.property)
        let id = existing ?? UInt32(count)
        if existing == nil { count += 1 }
        if seen.count >= 4 * count + 16 {
            var numbered = Set<UInt32>()
            var kept: ContiguousArray<Seen> = []
            for entry in seen where numbered.insert(entry.id).inserted { kept.append(entry) }
            (seen, index) = (kept, nil)
        }
        seen.append(Seen(known: known, writer: writer, id: id))
        if index != nil {
            if !isKnownUniquelyReferenced(&index!) { index = Index(index!.byKey, index!.byProperty) }
            let index = index!
            index.byKey[known.key] = seen.count - 1
            if existing == nil { index.byProperty[known.property] = id }
        } else if seen.count > Self.indexedBeyond {
            index = Index(
                Dictionary(uniqueKeysWithValues: seen.indices.map { (seen[$0].known.key, $0) }),
                Dictionary(seen.map { ($0.known.property, $0.id) }, uniquingKeysWith: { first, _ in first })
            )
        }
        return id
    }
}
