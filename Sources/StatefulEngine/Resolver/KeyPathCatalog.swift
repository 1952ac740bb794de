// What the process knows of the key paths bound: the property each leads to on a class, and
// its writer there, shared by every resolver (a resolver numbers its properties itself: see
// KeyPathIDs).

/// A key path object applied to targets of one class.
///
/// Hashed and compared by the key path's identity: hashing a key path walks its components at
/// every bind, and a literal is one object every time it is evaluated.
/// Equal key paths made as different objects are different keys (a resolver gives them one id
/// through their property: see ``KeyPathIDs``).
struct KeyPathFromClass: Hashable {
    let keyPath: AnyKeyPath
    let rootClass: ObjectIdentifier

    init(_ keyPath: AnyKeyPath, on rootClass: AnyClass) { self.init(keyPath, ObjectIdentifier(rootClass)) }

    init(_ keyPath: AnyKeyPath, _ rootClass: ObjectIdentifier) { (self.keyPath, self.rootClass) = (keyPath, rootClass) }

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.keyPath === rhs.keyPath && lhs.rootClass == rhs.rootClass }

    func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(keyPath))
        hasher.combine(rootClass)
    }
}

/// What the process knows of a key path object on targets of a class: the property it leads
/// to (see ``PropertyPath``: finding it reads the key path), and the process's writer of it
/// there once a binding made one — a writer that holds nothing of a binding's caller (see
/// ``AnyPropertyWriter/Route``), which every binding of the key path on the class shares, in
/// every resolver.
final class KnownKeyPath: @unchecked Sendable {
    let key: KeyPathFromClass
    let property: PropertyPath
    /// Read and written by ``KeyPathCatalog``'s static methods, with its lock held.
    fileprivate var writer: AnyPropertyWriter?

    init(_ key: KeyPathFromClass, property: PropertyPath) { (self.key, self.property) = (key, property) }
}

/// The key paths the process has bound, by key path object and target class (see
/// ``KnownKeyPath``): resolvers share what reading a key path finds, and its writer.
///
/// Process-wide, so that a control binding a key path the process has seen keeps for it only
/// a reference, its writer and its property's id (see ``KeyPathIDs``). At most `limit` key
/// paths: key paths made anew at each evaluation would each add one, so past the limit the
/// catalog starts again (what it drops lives on in the resolvers that use it). It keeps the key
/// paths it holds alive, with their subscripts' arguments; what it drops is released once its
/// lock is released, as a deinit may bind.
struct KeyPathCatalog {
    let limit: Int
    private(set) var entries: [KeyPathFromClass: KnownKeyPath] = [:]

    init(limit: Int) { self.limit = limit }

    subscript(key: KeyPathFromClass) -> KnownKeyPath? { entries[key] }

    /// Records `known` (under its key); past the limit, starts again and returns what it
    /// dropped, for the caller to release once the lock is released.
    mutating func insert(_ known: KnownKeyPath) -> [KeyPathFromClass: KnownKeyPath] {
        var dropped: [KeyPathFromClass: KnownKeyPath] = [:]
        if entries.count >= limit { swap(&dropped, &entries) }
        entries[known.key] = known
        return dropped
    }

    /// The catalog of this process.
    static let shared = Locked(KeyPathCatalog(limit: 1024))

    /// What the process knows of `keyPath` on targets of `rootClass` (found when new, and
    /// recorded unless `record` is false), and its writer if a binding made one.
    ///
    /// The property is found with the lock released: the process strategy's first use may
    /// report a diagnostic, whose handler may bind.
    ///
    /// - Complexity: A lock and a hash lookup for a key path recorded; else reading it.
    static func known<Value>(
        _ keyPath: AnyKeyPath, valueType: Value.Type, rootClass: AnyClass, record: Bool = true
    ) -> (known: KnownKeyPath, writer: AnyPropertyWriter?) {
        let key = KeyPathFromClass(keyPath, on: rootClass)
        if let found = shared.withLock({ catalog in catalog[key].map { ($0, $0.writer) } }) { return found }
        let made = KnownKeyPath(key, property: processStrategy.property(keyPath, valueType: valueType, rootClass: rootClass))
        guard record else { return (made, nil) }
        let (found, dropped) = shared.withLock { catalog in
            if let recorded = catalog[key] { return ((recorded, recorded.writer), [:]) }
            return ((made, nil), catalog.insert(made))
        }
        withExtendedLifetime(dropped) {}  // released here, the lock released
        return found
    }

    /// The process's writer of `known`'s key path, if a binding made one.
    static func writer(of known: KnownKeyPath) -> AnyPropertyWriter? { shared.withLock { _ in known.writer } }

    /// The process's writer of `known`'s key path: the one recorded (another thread may have
    /// recorded one since the caller looked: the first is kept), else `made`, recorded. `made`
    /// must hold nothing of a binding's caller (not ``AnyPropertyWriter/Route/callersSetter``).
    static func share(_ made: AnyPropertyWriter, for known: KnownKeyPath) -> AnyPropertyWriter {
        guard made.route != .callersSetter else {
            internalInconsistency("KeyPathCatalog: a caller's setter shared across resolvers")
        }
        return shared.withLock { _ in
            if let recorded = known.writer { return recorded }
            known.writer = made
            return made
        }
    }
}
