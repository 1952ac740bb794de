// The portable property access: plain Swift, no private layout read.

/// Reaches properties as Swift code does, through their key paths. A property is identified
/// by its key path (`==`), so key paths written from two root types are two bindings (see
/// "One binding per property").
struct PortableAccess: PropertyAccessStrategy {
    var access: PropertyAccess { .portable }

    func property<Value>(_ keyPath: AnyKeyPath, valueType: Value.Type, rootClass: AnyClass) -> PropertyPath {
        PropertyPath(keyPath, valueType: valueType)
    }

    /// The caller's accessor.
    func writer<Target: AnyObject, Value>(
        _ keyPath: ReferenceWritableKeyPath<Target, Value>, targetClass: AnyClass, box: ValueBox<Value>,
        accessors: KeyPathAccessors<Target, Value>
    ) -> AnyPropertyWriter {
        SetterPropertyWriter(accessors)
    }

    func reader<Root: AnyObject>(_ keyPath: KeyPath<Root, Bool>, rootClass: AnyClass) -> (AnyObject) -> Bool {
        { unsafeDowncast($0, to: Root.self)[keyPath: keyPath] }
    }
}
