// A resolver's part that numbers bound properties: one id per property (see PropertyPath),
// whatever the key path's root type, with a cache of the key paths already seen and of their
// writers.

/// The ids of the properties a resolver's key paths lead to, numbered from 0 in the order
/// they are first seen; key paths from different root types to one property share an id.
///
/// Finding the property a key path leads to reads the key path (see ``PropertyPath``); the
/// answer is cached by key path and target class, so it is found once. So is the key path's
/// writer on that class, which every binding of the key path on targets of the class shares.
struct KeyPathIDs {
    /// A key path applied to targets of one class.
    private struct KeyPathFromClass: Hashable {
        let keyPath: AnyKeyPath
        let rootClass: ObjectIdentifier
    }

    /// What is known of a key path on a class: its property's id, and its writer once a
    /// binding needed one.
    private struct Entry {
        let id: UInt32
        var writer: AnyPropertyWriter?
    }

    private var entries: [KeyPathFromClass: Entry] = [:]
    private var idsByProperty: [PropertyPath: UInt32] = [:]

    /// The number of properties numbered.
    var count: Int { idsByProperty.count }

    /// The id of the property `keyPath` leads to from `target`, numbering it when it is new.
    ///
    /// - Complexity: One hash lookup for a key path seen before on this class.
    mutating func id<Target, Value>(_ keyPath: ReferenceWritableKeyPath<Target, Value>, of target: Target) -> UInt32 {
        let rootClass: AnyClass = type(of: target as AnyObject)
        let key = KeyPathFromClass(keyPath: keyPath, rootClass: ObjectIdentifier(rootClass))
        if let entry = entries[key] { return entry.id }
        let property = processStrategy.property(keyPath, valueType: Value.self, rootClass: rootClass)
        let id = idsByProperty[property] ?? UInt32(idsByProperty.count)
        idsByProperty[property] = id
        entries[key] = Entry(id: id)
        return id
    }

    /// The writer of `keyPath` on `target`'s class, made on first use; `box` is any box of
    /// the values it writes. The key path's id must have been asked for on that class.
    ///
    /// - Complexity: One hash lookup once the writer is made.
    mutating func writer<Target: AnyObject, Value>(
        _ keyPath: ReferenceWritableKeyPath<Target, Value>, of target: Target, box: ValueBox<Value>
    ) -> AnyPropertyWriter {
        let rootClass: AnyClass = type(of: target as AnyObject)
        let key = KeyPathFromClass(keyPath: keyPath, rootClass: ObjectIdentifier(rootClass))
        guard let writer = entries[key]?.writer else {
            let writer = processStrategy.writer(keyPath, targetClass: rootClass, box: box)
            entries[key]?.writer = writer
            return writer
        }
        return writer
    }
}
