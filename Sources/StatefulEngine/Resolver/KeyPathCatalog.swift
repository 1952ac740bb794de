// What the process knows of the key paths bound: the property each leads to on a class, and
// its writer there, shared by every resolver (a resolver numbers its properties itself: see
// KeyPathIDs).

/// A key path object applied to targets of one class.
///
/// Hashed and compared by the key path's identity: hashing a key path walks its components
/// (about 500 instructions a bind), and a literal is one object every time it is evaluated.
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
/// to (see ``PropertyPath``: finding it reads the key path), and its writer there once a
/// binding made one, which every binding of the key path on the class shares, in every
/// resolver — a writer holds nothing of a resolver or a target (the key path, where the
/// property lies, its setter).
final class KnownKeyPath: @unchecked Sendable {
    let key: KeyPathFromClass
    let property: PropertyPath
    /// Read and written with ``KeyPathCatalog/shared``'s lock held.
    fileprivate var writer: AnyPropertyWriter?

    init(_ key: KeyPathFromClass, property: PropertyPath) { (self.key, self.property) = (key, property) }
}

/// The key paths the process has bound, by key path object and target class (see
/// ``KnownKeyPath``).
///
/// Process-wide, so that a control binding a key path the process has seen keeps for it only
/// a reference and its property's id (see ``KeyPathIDs``). At most `limit` key paths: key
/// paths made anew at each evaluation would each add one, so past the limit the catalog starts
/// again (what it drops lives on in the resolvers that use it).
struct KeyPathCatalog {
    let limit: Int
    private(set) var entries: [KeyPathFromClass: KnownKeyPath] = [:]

    init(limit: Int) { self.limit = limit }

    subscript(key: KeyPathFromClass) -> KnownKeyPath? { entries[key] }

    /// Records `known` (under its key), starting again past the limit.
    mutating func insert(_ known: KnownKeyPath) {
        if entries.count >= limit { entries.removeAll() }
        entries[known.key] = known
    }

    /// The writer of `known`, if a binding made one.
    func writer(of known: KnownKeyPath) -> AnyPropertyWriter? { known.writer }

    /// The writer of `known`, else `made`, recorded: another thread may have recorded one
    /// since the caller looked, and the first recorded is kept — unless it walks the key path
    /// and `made` does not: a caller whose setter reaches the property (see
    /// ``KeyPathAccessors``) records its writer in place of one a caller without it made.
    func writer(of known: KnownKeyPath, recording made: AnyPropertyWriter) -> AnyPropertyWriter {
        if let recorded = known.writer, !recorded.walksKeyPath || made.walksKeyPath { return recorded }
        known.writer = made
        return made
    }

    /// The catalog of this process.
    static let shared = Locked(KeyPathCatalog(limit: 1024))

    /// What the process knows of `keyPath` on targets of `rootClass` (found and recorded when
    /// new), and its writer if a binding made one.
    ///
    /// The property is found with the lock released: the process strategy's first use may
    /// report a diagnostic, whose handler may bind.
    ///
    /// - Complexity: A lock and a hash lookup for a key path recorded; else reading it.
    static func known<Value>(
        _ keyPath: AnyKeyPath, valueType: Value.Type, rootClass: AnyClass
    ) -> (known: KnownKeyPath, writer: AnyPropertyWriter?) {
        let key = KeyPathFromClass(keyPath, on: rootClass)
        if let found = shared.withLock({ catalog in catalog[key].map { ($0, $0.writer) } }) { return found }
        let made = KnownKeyPath(key, property: processStrategy.property(keyPath, valueType: valueType, rootClass: rootClass))
        return shared.withLock { catalog in
            if let recorded = catalog[key] { return (recorded, recorded.writer) }
            catalog.insert(made)
            return (made, nil)
        }
    }
}
