// How a control binds a reusable list of values by state (StateValues), or a closure of the state, with one call.

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

extension Control {
    /// Binds `resolve` to `keyPath` of `target`: its result for the control's state is written,
    /// now and at each state change (UIKit's configuration update handler, Flutter's
    /// `resolveWith`). The closure is called once per distinct state, its result kept as a rule
    /// for that state at `priority`: it must depend on the state alone.
    ///
    /// ```swift
    /// pin.setValue(for: \.fillColor, of: dot) { state in
    ///     state.contains(.disabled) ? .grey : state.contains(.selected) ? .white : .clear
    /// }
    /// ```
    ///
    /// Binding a closure again replaces the earlier one and forgets its results; values bound
    /// with ``setValue(_:for:of:when:)`` compete with it by priority; ``explain(_:of:)``
    /// shows it as one rule. The control keeps the closure: a closure that refers to the control
    /// captures it `unowned` or `weak`. Stops the program, with a message, if the resolver runs
    /// out of memory or of ids, as ``setValue(_:for:of:when:)`` does.
    ///
    /// - Complexity: a bind per distinct state, the first time the control takes it; then, as
    ///   any value, what changes.
    @inlinable
    public func setValue<Target: AnyObject, Value>(
        for keyPath: @autoclosure () -> ReferenceWritableKeyPath<Target, Value>, of target: Target,
        priority: StatePriority = .required, _ resolve: @escaping (ControlState) -> Value
    ) {
        bind(resolve, through: KeyPathAccessors(keyPath), of: target, priority: priority)
    }

    /// ``setValue(for:of:priority:_:)`` with the key path's accessors made by the caller's code.
    @usableFromInline
    func bind<Target: AnyObject, Value>(
        _ resolve: @escaping (ControlState) -> Value, through accessors: KeyPathAccessors<Target, Value>, of target: Target,
        priority: StatePriority
    ) {
        do {
            try resolver.setValue(through: accessors, of: target, priority: priority, resolve)
        } catch {
            stop(for: error, in: "\(type(of: self)).setValue(for:of:priority:_:)")
        }
    }
}

extension StateConfigurable {
    /// Binds `resolve` to the control's own `keyPath` (see ``Control/setValue(for:of:priority:_:)``).
    @inlinable
    public func setValue<Value>(
        for keyPath: @autoclosure () -> ReferenceWritableKeyPath<Self, Value>, priority: StatePriority = .required,
        _ resolve: @escaping (ControlState) -> Value
    ) {
        setValue(for: keyPath(), of: self, priority: priority, resolve)
    }
}
