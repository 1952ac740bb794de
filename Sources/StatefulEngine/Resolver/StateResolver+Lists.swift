// How a resolver binds a list of values by state (StateValues) with one call.

extension StateResolver {
    /// Binds each entry of `values` to `keyPath` of `target`, in order, as
    /// ``setValue(_:for:of:when:)`` binds one: with the entry's descriptor and the priority its
    /// position gave it (see ``StateValues``). The key path expression is evaluated once.
    ///
    /// Values bound before to the property stay, and compete by priority; an entry with the
    /// same descriptor identity as one of them replaces it. To replace what the property had,
    /// remove it first (``removeValues(for:of:)``).
    ///
    /// - Throws: ``ResolverError/outOfMemory`` or another ``ResolverError``: the entries before
    ///   the one that failed are bound.
    /// - Complexity: that of ``setValue(_:for:of:when:)``, once per entry.
    @inlinable
    public func setValues<Target: AnyObject, Value>(
        _ values: StateValues<Value>, for keyPath: @autoclosure () -> ReferenceWritableKeyPath<Target, Value>, of target: Target
    ) throws(ResolverError) {
        try setValues(values, through: KeyPathAccessors(keyPath), of: target)
    }

    /// ``setValues(_:for:of:)`` with the key path's accessors made by the caller's code.
    @usableFromInline
    package func setValues<Target: AnyObject, Value>(
        _ values: StateValues<Value>, through accessors: KeyPathAccessors<Target, Value>, of target: Target
    ) throws(ResolverError) {
        for entry in values.entries { try setValue(entry.rule, through: accessors, of: target, when: entry.descriptor) }
    }
}
