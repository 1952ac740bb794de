// A resolver's part that numbers bound properties: one id per property (see PropertyPath),
// whatever the key path's root type; what a key path leads to, and its writer, the process
// knows (see KeyPathCatalog).

/// The ids of the properties a resolver's key paths lead to, numbered from 0 in the order
/// they are first seen; key paths from different root types to one property share an id.
///
/// Which property a key path leads to, and its writer on a class, come from the process's
/// ``KeyPathCatalog``: a resolver keeps, for each key path object it has seen, a reference to
/// what the catalog knows of it, its writer once one was made, and its property's id — 24 bytes
/// in one array while there are a few (a control's two key paths: one allocation of 80 bytes);
/// past ``indexedBeyond``, hash indexes by key and by property beside it.
struct KeyPathIDs {
    private struct Seen {
        let known: KnownKeyPath
        var writer: AnyPropertyWriter?
        let id: UInt32
    }

    /// In the order first seen.
    private var seen: ContiguousArray<Seen> = []
    /// Positions in ``seen`` by key, and ids by property, once there are more than ``indexedBeyond``.
    private var index: (byKey: [KeyPathFromClass: Int], byProperty: [PropertyPath: UInt32])?

    /// The number of properties numbered.
    private(set) var count = 0

    /// Searched in order up to this many key paths, looked up beyond.
    static var indexedBeyond: Int { 8 }

    /// The number of key path objects seen (at most four times the properties, plus 16).
    var seenKeyPaths: Int { seen.count }

    /// The id of the property `keyPath` leads to from `target`, numbering it when it is new.
    ///
    /// - Complexity: O(1) for a key path seen (a search of at most ``indexedBeyond``, or a
    ///   lookup); else a lookup in the ``KeyPathCatalog`` too.
    mutating func id<Target: AnyObject, Value>(_ keyPath: ReferenceWritableKeyPath<Target, Value>, of target: Target) -> UInt32 {
        property(keyPath, of: target).id
    }

    /// The id of the property `keyPath` leads to from `target` (numbered when it is new), and
    /// the key path's writer on `target`'s class if a binding made it (see
    /// ``recordWriter(_:of:box:accessors:)``).
    ///
    /// - Complexity: O(1) for a key path seen (a search of at most ``indexedBeyond``, or a
    ///   lookup); else a lookup in the ``KeyPathCatalog`` too.
    mutating func property<Target: AnyObject, Value>(
        _ keyPath: ReferenceWritableKeyPath<Target, Value>, of target: Target
    ) -> (id: UInt32, writer: AnyPropertyWriter?) {
        let rootClass: AnyClass = type(of: target)
        if let position = position(of: keyPath, rootClass: ObjectIdentifier(rootClass)) {
            let seen = seen[position]
            return (seen.id, seen.writer ?? KeyPathCatalog.shared.withLock { $0.writer(of: seen.known) })
        }
        let (known, writer) = KeyPathCatalog.known(keyPath, valueType: Value.self, rootClass: rootClass)
        return (see(known, writer: writer), writer)
    }

    /// Makes the writer of `keyPath` on `target`'s class (whose id was asked for), which every
    /// later binding of it on that class shares, in every resolver, unless one was recorded
    /// since; `box` is any box of the values it writes, `accessors` the binding caller's (see
    /// ``KeyPathAccessors``).
    mutating func recordWriter<Target: AnyObject, Value>(
        _ keyPath: ReferenceWritableKeyPath<Target, Value>, of target: Target, box: ValueBox<Value>,
        accessors: KeyPathAccessors<Target, Value>? = nil
    ) -> AnyPropertyWriter {
        let rootClass: AnyClass = type(of: target)
        guard let position = position(of: keyPath, rootClass: ObjectIdentifier(rootClass)) else {
            internalInconsistency("KeyPathIDs: a writer asked for before the key path's id")
        }
        let made = processStrategy.writer(keyPath, targetClass: rootClass, box: box, accessors: accessors)
        let writer = KeyPathCatalog.shared.withLock { $0.writer(of: seen[position].known, recording: made) }
        seen[position].writer = writer
        return writer
    }

    /// The id of the property `keyPath` leads to from a target of `rootClass`, when that
    /// property was numbered (by ``id(_:of:)``, through this key path or an equal one); nil
    /// otherwise. Numbers nothing.
    ///
    /// - Complexity: O(1) for a key path seen; else a lookup in the ``KeyPathCatalog`` (or
    ///   reading the key path) and O(1) here.
    func existingID(_ keyPath: AnyKeyPath, rootClass: AnyClass) -> UInt32? {
        if let position = position(of: keyPath, rootClass: ObjectIdentifier(rootClass)) { return seen[position].id }
        func known<Value>(valueType: Value.Type) -> KnownKeyPath {
            KeyPathCatalog.known(keyPath, valueType: valueType, rootClass: rootClass).known
        }
        return id(of: _openExistential(type(of: keyPath).valueType, do: known).property)
    }

    // MARK: The key paths seen

    /// The position in ``seen`` of `keyPath` on `rootClass`.
    private func position(of keyPath: AnyKeyPath, rootClass: ObjectIdentifier) -> Int? {
        if let index { return index.byKey[KeyPathFromClass(keyPath, rootClass)] }
        return seen.firstIndex { $0.known.key.keyPath === keyPath && $0.known.key.rootClass == rootClass }
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
        let id = id(of: known.property) ?? UInt32(count)
        if id == count { count += 1 }
        if seen.count >= 4 * count + 16 {
            var kept = Set<UInt32>()
            seen.removeAll { !kept.insert($0.id).inserted }
            index = nil
        }
        seen.append(Seen(known: known, writer: writer, id: id))
        if index != nil {
            index!.byKey[known.key] = seen.count - 1
            index!.byProperty[known.property] = index!.byProperty[known.property] ?? id
        } else if seen.count > Self.indexedBeyond {
            index = (
                Dictionary(seen.indices.map { (seen[$0].known.key, $0) }, uniquingKeysWith: { first, _ in first }),
                Dictionary(seen.map { ($0.known.property, $0.id) }, uniquingKeysWith: { first, _ in first })
            )
        }
        return id
    }
}
