// How a control binds values to states, through its resolver.

extension Control {
    /// Binds `value` to `keyPath` of `target` for the states `descriptor` matches.
    ///
    /// The target is not kept alive (its rules go once it is deallocated). The first value bound to a (target, key path) captures the
    /// key path's current value as its default, written whenever no rule matches. A value that
    /// wins for the applied state is written at once. With the same descriptor identity
    /// (mode, state, priority, name) the value replaces the earlier one and counts as set most
    /// recently, which decides ties between equal priorities.
    ///
    /// Binding another control's property makes that control depend on this one's state:
    ///
    /// ```swift
    /// pin.setValue(true, for: \.isEnabled, of: submit, when: .containing([.filled, .valid]))
    /// ```
    ///
    /// Stops the program, with a message, if the resolver runs out of memory or of ids (as
    /// Swift stops on a failed allocation); ``StateResolver/setValue(_:for:of:when:)`` throws
    /// those conditions instead.
    ///
    /// The key path is an autoclosure so that a key path literal becomes an assignment where the
    /// call is compiled; the expression is evaluated once (see
    /// ``StateResolver/setValue(_:for:of:when:)``).
    ///
    /// - Complexity: O(log *n*) in the bound rules, plus the write when the value wins.
    @inlinable
    public func setValue<Target: AnyObject, Value>(
        _ value: Value, for keyPath: @autoclosure () -> ReferenceWritableKeyPath<Target, Value>, of target: Target,
        when descriptor: StateDescriptor
    ) {
        bind(RuleValue(value), through: KeyPathAccessors(keyPath), of: target, when: descriptor)
    }

    /// ``setValue(_:for:of:when:)`` with the value made for the resolver's slab and the key
    /// path's accessors made by the caller's code.
    @usableFromInline
    func bind<Target: AnyObject, Value>(
        _ value: RuleValue<Value>, through accessors: KeyPathAccessors<Target, Value>, of target: Target,
        when descriptor: StateDescriptor
    ) {
        do {
            try resolver.setValue(value, through: accessors, of: target, when: descriptor)
        } catch {
            stop(for: error, in: "\(type(of: self)).setValue(_:for:of:when:)")
        }
    }

    /// Binds `value` for exactly `state` (the original library's "for a state").
    @inlinable
    public func setValue<Target: AnyObject, Value>(
        _ value: Value, for keyPath: @autoclosure () -> ReferenceWritableKeyPath<Target, Value>, of target: Target,
        forState state: ControlState
    ) {
        setValue(value, for: keyPath(), of: target, when: .exactly(state))
    }

    /// Binds `value` for every state containing `state` ("for all states contained").
    @inlinable
    public func setValue<Target: AnyObject, Value>(
        _ value: Value, for keyPath: @autoclosure () -> ReferenceWritableKeyPath<Target, Value>, of target: Target,
        forAllStatesContained state: ControlState
    ) {
        setValue(value, for: keyPath(), of: target, when: .containing(state))
    }

    /// Binds `value` for every state that does not contain `state` ("for an inverted state").
    @inlinable
    public func setValue<Target: AnyObject, Value>(
        _ value: Value, for keyPath: @autoclosure () -> ReferenceWritableKeyPath<Target, Value>, of target: Target,
        forInvertedState state: ControlState
    ) {
        setValue(value, for: keyPath(), of: target, when: .notContaining(state))
    }

    /// The value `keyPath` of `target` gets in `state`: the winning bound value, or the default
    /// when no rule matches. Nil when nothing is bound to it.
    public func value<Target: AnyObject, Value>(
        for keyPath: ReferenceWritableKeyPath<Target, Value>, of target: Target, in state: ControlState
    ) -> Value? {
        resolver.value(for: keyPath, of: target, in: state)
    }

    /// Removes the value bound for exactly `descriptor`; the next winner (or the default) is
    /// written if that value was applied. Returns whether there was one.
    ///
    /// A removal from rules shared with other controls (see "Under the hood" in "State
    /// resolution") first gives the control a copy of its own; it stops the program, with a
    /// message, if there is no memory for the copy (as ``setValue(_:for:of:when:)`` does).
    @discardableResult
    public func removeValue<Target: AnyObject, Value>(
        for keyPath: ReferenceWritableKeyPath<Target, Value>, of target: Target, when descriptor: StateDescriptor
    ) -> Bool {
        resolver.removeValue(for: keyPath, of: target, when: descriptor)
    }

    /// Removes every value bound to `keyPath` of `target`, writing its default back.
    ///
    /// Stops the program when there is no memory to copy shared rules, as
    /// ``removeValue(for:of:when:)`` does.
    public func removeValues<Target: AnyObject, Value>(for keyPath: ReferenceWritableKeyPath<Target, Value>, of target: Target) {
        resolver.removeValues(for: keyPath, of: target)
    }

    /// Removes every value bound to `target`, writing defaults back.
    ///
    /// Stops the program when there is no memory to copy shared rules, as
    /// ``removeValue(for:of:when:)`` does.
    public func removeValues(of target: AnyObject) {
        resolver.removeValues(of: target)
    }

    /// Removes every bound value, writing defaults back.
    public func removeAllValues() {
        resolver.removeAllValues()
    }

    /// The bound properties whose value differs between `old` and `new`: what a change of the
    /// control's state from `old` to `new` writes, in the order it writes them (see
    /// ``StateResolver/changedProperties(from:to:)``).
    ///
    /// ```swift
    /// var shown = control.appliedState
    /// // … after a touch or a key:
    /// let changed = control.changedProperties(from: shown, to: control.appliedState)
    /// shown = control.appliedState
    /// ```
    ///
    /// Stops the program, with a message, if the resolver runs out of memory for the diff (as
    /// ``setValue(_:for:of:when:)`` does).
    /// - Complexity: O(*c*) in the properties that change, when the pair of states was applied
    ///   before.
    public func changedProperties(from old: ControlState, to new: ControlState) -> [BoundProperty] {
        do {
            return try resolver.changedProperties(from: old, to: new)
        } catch {
            stop(for: error, in: "\(type(of: self)).changedProperties(from:to:)")
        }
    }

    /// Frees the memory the control's resolver holds to make state changes cheap, its cached
    /// resolutions and diffs, for a control that will stay idle a while: the controls of a
    /// page a server holds while its user is away. Nothing it shows changes; its next state
    /// change computes what to write from the rules again (see
    /// ``StateResolver/releaseCaches()``). The caches of rules shared with other controls (see
    /// "Under the hood" in "State resolution") are theirs too: all of them compute again.
    ///
    /// - Complexity: O(cached states and diffs).
    public func releaseCaches() {
        resolver.releaseCaches()
    }

    /// Explains which rule gives `keyPath` of `target` its value in the applied state, and why:
    /// every candidate in resolution order, matched or not, with priorities and the tie rule.
    public func explain<Target: AnyObject, Value>(
        _ keyPath: ReferenceWritableKeyPath<Target, Value>, of target: Target
    ) -> StateExplanation<Value> {
        resolver.explain(keyPath, of: target)
    }

    /// Every property bound through this control whose target is alive — its own and other
    /// objects' — in the order a change of its state writes them, each named by the key path
    /// its first binding used (see ``StateResolver/boundProperties``).
    ///
    /// ```swift
    /// for property in pin.boundProperties {
    ///     print(pin.explain(property)!)
    /// }
    /// ```
    ///
    /// - Complexity: O(*n* log *n*) in the bound properties.
    public var boundProperties: [BoundProperty] { resolver.boundProperties }

    /// Explains which rule gives `property` its value in `state` (by default, the applied
    /// state), its values typed `Any`: ``explain(_:of:)`` for a property of
    /// ``boundProperties``, whose type is not known where it is explained. Nil when `property`
    /// is not bound through this control (see ``StateResolver/explain(_:in:)``).
    ///
    /// - Complexity: O(*r* log *r*) in the property's rules.
    public func explain(_ property: BoundProperty, in state: ControlState? = nil) -> StateExplanation<Any>? {
        resolver.explain(property, in: state)
    }
}
