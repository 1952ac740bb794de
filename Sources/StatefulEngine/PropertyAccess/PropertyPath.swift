// The identity of a bound property, which decides when two key paths are one binding.

/// The property a key path leads to, for one class of target.
///
/// `\Button.titleColor` and `\VisitableButton.titleColor` are different key paths (`==` is
/// false: their types differ), yet on a `VisitableButton` they are one property, and a resolver
/// must keep one binding for it — otherwise two rule sets would write the same property and
/// priorities across them would mean nothing. The direct property access reads which property
/// a key path reaches from the key path object (its components: stored offsets and computed
/// properties' identifiers, see `KeyPathComponent`); the portable access, and the direct one
/// for a key path it does not fully understand, identifies the property by its key path.
struct PropertyPath: Hashable {
    private enum Identity: Hashable {
        /// Per component: its header, its offset or (resolved) identifier, and the next
        /// component's root type.
        case components([UInt64])
        /// The three words of a path of one component (most paths), held inline: no array.
        case component(UInt64, UInt64, UInt64)
        case keyPath(AnyKeyPath)
    }

    private let identity: Identity
    private let valueType: ObjectIdentifier

    /// The property identified by the key path itself.
    init<Value>(_ keyPath: AnyKeyPath, valueType: Value.Type) {
        (identity, self.valueType) = (.keyPath(keyPath), ObjectIdentifier(valueType))
    }

    /// The property identified by the components the direct access read.
    init<Value>(components: [UInt64], valueType: Value.Type) {
        identity = components.count == 3 ? .component(components[0], components[1], components[2]) : .components(components)
        self.valueType = ObjectIdentifier(valueType)
    }

    /// Whether the path was read component by component (false: compared as a key path).
    var isCanonical: Bool {
        if case .keyPath = identity { return false }
        return true
    }
}
