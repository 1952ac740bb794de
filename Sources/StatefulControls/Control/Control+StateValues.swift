// How a control binds a reusable list of values by state (StateValues) with one call.

extension Control {
    /// Binds each entry of `values` to `keyPath` of `target`, in order: the first entry that
    /// matches the control's state wins, unless priorities were given (see ``StateValues``).
    ///
    /// ```swift
    /// let dotFill: StateValues<Color> = [.containing(.filled): .white, .always: .clear]
    /// pin.setValues(dotFill, for: \.fill, of: dot)
    /// ```
    ///
    /// Each entry is bound as ``setValue(_:for:of:when:)`` binds a value; values bound before to
    /// the property stay and compete by priority. Controls that bind one list to the same
    /// properties in the same order share one rule table. The key path expression is evaluated
    /// once. Stops the program, with a message, if the resolver runs out of memory or of ids, as
    /// ``setValue(_:for:of:when:)`` does.
    ///
    /// - Complexity: that of ``setValue(_:for:of:when:)``, once per entry.
    @inlinable
    public func setValues<Target: AnyObject, Value>(
        _ values: StateValues<Value>, for keyPath: @autoclosure () -> ReferenceWritableKeyPath<Target, Value>, of target: Target
    ) {
        bind(values, through: KeyPathAccessors(keyPath), of: target)
    }

    /// ``setValues(_:for:of:)`` with the key path's accessors made by the caller's code.
    @usableFromInline
    func bind<Target: AnyObject, Value>(_ values: StateValues<Value>, through accessors: KeyPathAccessors<Target, Value>, of target: Target)
    {
        do {
            try resolver.setValues(values, through: accessors, of: target)
        } catch {
            stop(for: error, in: "\(type(of: self)).setValues(_:for:of:)")
        }
    }
}

extension StateConfigurable {
    /// Binds each entry of `values` to the control's own `keyPath`, in order (see
    /// ``Control/setValues(_:for:of:)``).
    @inlinable
    public func setValues<Value>(_ values: StateValues<Value>, for keyPath: @autoclosure () -> ReferenceWritableKeyPath<Self, Value>) {
        setValues(values, for: keyPath(), of: self)
    }
}
