// A resolver's part that numbers bound properties: one id per property (see PropertyPath),
// whatever the key path's root type, with a cache of the key paths already seen.

/// The ids of the properties a resolver's key paths lead to, numbered from 0 in the order
/// they are first seen; key paths from different root types to one property share an id.
///
/// Finding the property a key path leads to reads the key path (see ``PropertyPath``); the
/// answer is cached by key path and target class, so it is found once.
struct KeyPathIDs {
    /// A key path applied to targets of one class.
    private struct KeyPathFromClass: Hashable {
        let keyPath: AnyKeyPath
        let rootClass: ObjectIdentifier
    }

    private var idsByKeyPath: [KeyPathFromClass: UInt32] = [:]
    private var idsByProperty: [PropertyPath: UInt32] = [:]

    /// The number of properties numbered.
    var count: Int { idsByProperty.count }

    /// The id of the property `keyPath` leads to from `target`, numbering it when it is new.
    ///
    /// - Complexity: One hash lookup for a key path seen before on this class.
    mutating func id<Target, Value>(_ keyPath: ReferenceWritableKeyPath<Target, Value>, of target: Target) -> UInt32 {
        let rootClass: AnyClass = type(of: target as AnyObject)
        let key = KeyPathFromClass(keyPath: keyPath, rootClass: ObjectIdentifier(rootClass))
        if let id = idsByKeyPath[key] { return id }
        let property = processStrategy.property(keyPath, valueType: Value.self, rootClass: rootClass)
        let id = idsByProperty[property] ?? UInt32(idsByProperty.count)
        idsByProperty[property] = id
        idsByKeyPath[key] = id
        return id
    }

    /// The id of the property `keyPath` leads to from a target of `rootClass`, when that key
    /// path was seen on that class before (by ``id(_:of:)``); nil otherwise. Numbers nothing.
    ///
    /// - Complexity: One hash lookup.
    func existingID(_ keyPath: AnyKeyPath, rootClass: AnyClass) -> UInt32? {
        idsByKeyPath[KeyPathFromClass(keyPath: keyPath, rootClass: ObjectIdentifier(rootClass))]
    }
}
