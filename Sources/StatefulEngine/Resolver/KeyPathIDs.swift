// A resolver's part that numbers bound properties: one id per property (see PropertyPath),
// whatever the key path's root type, with a cache of the key paths already seen and of their
// writers.

/// A key path object applied to targets of one class.
///
/// Hashed and compared by the key path's identity: hashing a key path walks its components
/// (about 500 instructions a bind), and a literal is one object every time it is evaluated.
/// Equal key paths made as different objects are different keys (a resolver gives them one id
/// through their property: see ``KeyPathIDs``).
struct KeyPathFromClass: Hashable {
    let keyPath: AnyKeyPath
    let rootClass: ObjectIdentifier

    init(_ keyPath: AnyKeyPath, on rootClass: AnyClass) {
        (self.keyPath, self.rootClass) = (keyPath, ObjectIdentifier(rootClass))
    }

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.keyPath === rhs.keyPath && lhs.rootClass == rhs.rootClass }

    func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(keyPath))
        hasher.combine(rootClass)
    }
}

/// The ids of the properties a resolver's key paths lead to, numbered from 0 in the order
/// they are first seen; key paths from different root types to one property share an id.
///
/// Finding the property a key path leads to reads the key path (see ``PropertyPath``); the
/// answer is cached by key path and target class, so it is found once. So is the key path's
/// writer on that class, which every binding of the key path on targets of the class shares.
struct KeyPathIDs {
    /// What is known of a key path on a class: its property's id, and its writer once a
    /// binding needed one.
    private struct Entry {
        let id: UInt32
        var writer: AnyPropertyWriter?
    }

    private var entries = CompactDictionary<KeyPathFromClass, Entry>()
    private var idsByProperty = CompactDictionary<PropertyPath, UInt32>()

    /// The number of properties numbered.
    var count: Int { idsByProperty.count }

    /// The number of key path objects whose ids are cached.
    var cachedKeyPaths: Int { entries.count }

    /// The id of the property `keyPath` leads to from `target`, numbering it when it is new.
    ///
    /// - Complexity: One lookup (see ``CompactDictionary``) for a key path seen before on this class.
    mutating func id<Target: AnyObject, Value>(_ keyPath: ReferenceWritableKeyPath<Target, Value>, of target: Target) -> UInt32 {
        property(keyPath, of: target).id
    }

    /// The id of the property `keyPath` leads to from `target` (numbered when it is new), and
    /// the key path's writer on `target`'s class if a binding made it (see ``makeWriter(_:of:box:)``).
    ///
    /// - Complexity: One lookup (see ``CompactDictionary``) for a key path seen before on this class.
    mutating func property<Target: AnyObject, Value>(
        _ keyPath: ReferenceWritableKeyPath<Target, Value>, of target: Target
    ) -> (id: UInt32, writer: AnyPropertyWriter?) {
        let rootClass: AnyClass = type(of: target)
        let key = KeyPathFromClass(keyPath, on: rootClass)
        if let entry = entries[key] { return (entry.id, entry.writer) }
        let property = processStrategy.property(keyPath, valueType: Value.self, rootClass: rootClass)
        let id = idsByProperty[property] ?? UInt32(idsByProperty.count)
        idsByProperty[property] = id
        // Key paths made anew at each evaluation would each add an entry: the cache starts
        // again once it holds several times the properties.
        if entries.count >= 4 * idsByProperty.count + 16 { entries.removeAll() }
        entries[key] = Entry(id: id)
        return (id, nil)
    }

    /// Makes the writer of `keyPath` on `target`'s class, which every later binding of it on
    /// that class shares; `box` is any box of the values it writes, `accessors` the binding
    /// caller's (see ``KeyPathAccessors``). The key path's id must have been asked for on that class.
    mutating func makeWriter<Target: AnyObject, Value>(
        _ keyPath: ReferenceWritableKeyPath<Target, Value>, of target: Target, box: ValueBox<Value>,
        accessors: KeyPathAccessors<Target, Value>? = nil
    ) -> AnyPropertyWriter {
        let rootClass: AnyClass = type(of: target)
        let writer = processStrategy.writer(keyPath, targetClass: rootClass, box: box, accessors: accessors)
        entries[KeyPathFromClass(keyPath, on: rootClass)]?.writer = writer
        return writer
    }

    /// The id of the property `keyPath` leads to from a target of `rootClass`, when that
    /// property was numbered (by ``id(_:of:)``, through this key path or an equal one); nil
    /// otherwise. Numbers nothing.
    ///
    /// - Complexity: One lookup (see ``CompactDictionary``) for a key path object seen before on this class; else
    ///   finding the property (reading the key path) and one more.
    func existingID(_ keyPath: AnyKeyPath, rootClass: AnyClass) -> UInt32? {
        if let entry = entries[KeyPathFromClass(keyPath, on: rootClass)] { return entry.id }
        func property<Value>(valueType: Value.Type) -> PropertyPath {
            processStrategy.property(keyPath, valueType: valueType, rootClass: rootClass)
        }
        return idsByProperty[_openExistential(type(of: keyPath).valueType, do: property)]
    }
}
