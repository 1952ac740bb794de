// A value computed from the state by a closure (Flutter's resolveWith, UIKit's configuration
// update handler): evaluated once per distinct state, each result kept as a rule for that state.

/// A property's values computed by a closure of the state, for one binding. Each state's value
/// is bound, the first time the resolver applies that state, as a rule `exactly(state)` at the
/// closure's priority: the rule table then caches it, diffs it and writes it as any other, and
/// the closure is not called again for that state.
final class ComputedValues {
    /// The binding the rules are bound to; the record is dropped once that binding is gone.
    let binding: Binding
    let priority: StatePriority
    /// The states whose value is bound.
    var states: Set<ControlState> = []
    /// Evaluates the closure for a state and binds the result, on the target given.
    let bind: (StateResolver, AnyObject, ControlState) throws(ResolverError) -> Void
    /// Evaluates the closure for a state, boxed (for ``StateResolver/explain(_:of:in:)``).
    let evaluate: (ControlState) -> AnyValueBox

    init(
        binding: Binding, priority: StatePriority,
        bind: @escaping (StateResolver, AnyObject, ControlState) throws(ResolverError) -> Void,
        evaluate: @escaping (ControlState) -> AnyValueBox
    ) {
        (self.binding, self.priority, self.bind, self.evaluate) = (binding, priority, bind, evaluate)
    }

    /// Whether `descriptor` is one of the rules this record bound.
    func owns(_ descriptor: StateDescriptor) -> Bool {
        descriptor == .exactly(descriptor.state, priority: priority) && states.contains(descriptor.state)
    }

    /// The one descriptor ``StateResolver/explain(_:of:in:)`` shows for the closure.
    var descriptor: StateDescriptor { .custom("(state) -> value", priority: priority) { _ in true } }
}

/// A resolver's computed bindings (see ``ComputedValues``), by binding key, and the states every
/// one of them has a value for: a state change checks those with one lookup.
struct ComputedBindings {
    var records: [UInt64: ComputedValues] = [:]
    var completeStates: Set<ControlState> = []

    subscript(key: UInt64) -> ComputedValues? {
        get { records[key] }
        set {
            records[key] = newValue
            if newValue != nil { completeStates = [] }
        }
    }
}

extension StateResolver {
    /// Binds `resolve` to `keyPath` of `target`: its result for the applied state is written
    /// now, and for each other state when that state is applied. The closure is called once per
    /// distinct state (its result is kept as a rule of the property for that state, at
    /// `priority`), so it must depend on the state alone.
    ///
    /// ```swift
    /// try resolver.setValue(for: \.tint, of: badge) { state in
    ///     state.contains(.selected) ? "blue" : "grey"
    /// }
    /// ```
    ///
    /// Binding a closure again to the property replaces the earlier one and forgets its
    /// results. Values bound with ``setValue(_:for:of:when:)`` compete with the closure's by
    /// priority. ``explain(_:of:in:)`` shows the closure as one rule, `custom("(state) -> value")`.
    /// The closure runs while the resolver applies a state, and may call back as a setter may.
    /// The resolver keeps the closure until it is replaced or its values are removed: a closure
    /// that refers to the resolver (or to the control that owns it) captures it `unowned` or
    /// `weak`, or the two keep each other alive.
    ///
    /// - Throws: ``ResolverError/outOfMemory`` or another ``ResolverError``.
    /// - Complexity: a bind per distinct state applied, the first time it is; then, as any
    ///   value, what changes.
    @inlinable
    public func setValue<Target: AnyObject, Value>(
        for keyPath: @autoclosure () -> ReferenceWritableKeyPath<Target, Value>, of target: Target,
        priority: StatePriority = .required, _ resolve: @escaping (ControlState) -> Value
    ) throws(ResolverError) {
        try setValue(through: KeyPathAccessors(keyPath), of: target, priority: priority, resolve)
    }

    /// ``setValue(for:of:priority:_:)`` with the key path's accessors made by the caller's code.
    @usableFromInline
    package func setValue<Target: AnyObject, Value>(
        through accessors: KeyPathAccessors<Target, Value>, of target: Target, priority: StatePriority,
        _ resolve: @escaping (ControlState) -> Value
    ) throws(ResolverError) {
        checkNotEvaluating("setValue(for:of:priority:_:)")
        let keyPath = accessors.keyPath
        // The earlier closure's results go: a rebind starts from no state computed.
        if let binding = binding(keyPath, of: target), let earlier = computedValues(of: binding) {
            computed[binding.key] = nil
            for state in earlier.states { removeValue(for: keyPath, of: target, when: .exactly(state, priority: earlier.priority)) }
        }
        let bind: (StateResolver, AnyObject, ControlState) throws(ResolverError) -> Void = { resolver, object, state in
            try resolver.setValue(
                RuleValue(resolve(state)), through: accessors, of: unsafeDowncast(object, to: Target.self),
                when: .exactly(state, priority: priority))
        }
        try bind(self, target, appliedState)
        guard let binding = binding(keyPath, of: target) else { return }  // user code removed it meanwhile
        let record = ComputedValues(binding: binding, priority: priority, bind: bind) { ValueBox(resolve($0)) }
        record.states.insert(appliedState)
        computed[binding.key] = record
    }

    /// Binds the value of every computed binding for `state` that was not bound yet, dropping
    /// the records of bindings that are gone. Before a diff to `state`: the closures run here.
    func bindComputedValues(for state: ControlState) throws(ResolverError) {
        guard !computed.completeStates.contains(state) else { return }
        // In key order (targets, then key paths, as first bound): the closures run in an order
        // that does not depend on hashing.
        for key in computed.records.keys.sorted() {
            guard let record = computed[key], !record.states.contains(state) else { continue }
            guard bindings[key] === record.binding, let object = record.binding.target.object else {
                computed[key] = nil
                continue
            }
            record.states.insert(state)
            try record.bind(self, object, state)
        }
        // Unless a closure bound another computed value meanwhile (which empties the set).
        if computed.records.values.allSatisfy({ $0.states.contains(state) }) { computed.completeStates.insert(state) }
    }

    /// The computed record of `binding`, if it has one.
    func computedValues(of binding: Binding) -> ComputedValues? {
        guard let record = computed[binding.key], record.binding === binding else { return nil }
        return record
    }
}
