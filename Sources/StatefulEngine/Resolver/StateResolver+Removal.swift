// How a resolver removes bound values: one rule, a property's, a target's or all, each settled
// by writing the next winner or the default back, in first-bind order.

internal import CStateResolver

extension StateResolver {
    /// Removes the value bound to `keyPath` of `target` for exactly `descriptor` (same identity).
    ///
    /// If that value was applied, the next winner (or the default) is written. When it was the
    /// binding's last value, the binding is forgotten and a later bind captures a new default.
    /// - Returns: Whether there was such a value.
    /// - Complexity: O(log *n*) in the bound pairs, plus O(*r*) in the rules of this pair.
    @discardableResult
    public func removeValue<Target: AnyObject, Value>(
        for keyPath: ReferenceWritableKeyPath<Target, Value>, of target: Target, when descriptor: StateDescriptor
    ) -> Bool {
        checkNotEvaluating("removeValue(for:of:when:)")
        // A custom name no rule uses cannot match a rule (and is not remembered).
        guard let binding = binding(keyPath, of: target), var cDescriptor = existingCDescriptor(descriptor) else { return false }
        guard prepareToRemove(of: binding.target.id, binding.keyPathID, cDescriptor) else { return false }
        let status = csr_remove(table, binding.target.id, binding.keyPathID, &cDescriptor)
        Self.expectSuccess(status)
        guard status == CSR_OK else { return false }
        drainReleased()
        settle([binding])
        return true
    }

    /// Removes every value bound to `keyPath` of `target` and writes its default back if a
    /// bound value was applied.
    ///
    /// - Complexity: O(log *n*) in the bound pairs, plus O(*r*) in the rules removed.
    public func removeValues<Target: AnyObject, Value>(
        for keyPath: ReferenceWritableKeyPath<Target, Value>, of target: Target
    ) {
        checkNotEvaluating("removeValues(for:of:)")
        guard let binding = binding(keyPath, of: target) else { return }
        remove([binding]) {
            guard prepareToRemove(of: binding.target.id, binding.keyPathID) else { return }
            Self.expectSuccess(csr_remove_binding(table, binding.target.id, binding.keyPathID))
        }
    }

    /// Removes every value bound to any key path of `target`, writing defaults back in the
    /// order ``apply(_:)`` writes.
    ///
    /// - Complexity: O(*k* log *n*) for the target's *k* key paths, plus the rules removed.
    public func removeValues(of target: AnyObject) {
        checkNotEvaluating("removeValues(of:)")
        guard let bound = existingTarget(target) else { return }
        remove(bindings.bindings(ofTarget: bound.id)) {
            guard prepareToRemove(of: bound.id) else { return }
            Self.expectSuccess(csr_remove_target(table, bound.id))
        }
    }

    /// Removes every bound value, writing defaults back in the order ``apply(_:)`` writes.
    ///
    /// - Complexity: O(*n* + *r*) in the bound pairs and rules.
    public func removeAllValues() {
        checkNotEvaluating("removeAllValues()")
        var values: [ValueSlab.Entry] = []
        remove([]) {
            // Shareable rules (other resolvers may be on them, and they have no custom names):
            // the resolver moves to the shared empty table. Rules of its own: removed in place,
            // their custom names counted out by the drain as the table lets go of them.
            if rules.history != nil { moveToEmptyRules() } else { values = rules.removingAllValues { csr_remove_all(table) } }
            applying.sensitiveBits = 0
        }
        ValueSlab.release(values)  // their deinits may call back
        // From rules of its own left empty, a resolver that shares its rules returns to the
        // shared empty table, and shares again — unless it set a cache budget, which its own
        // table keeps.
        if sharesRules, rules.history == nil, ruleCount == 0, cacheBudget == RuleTable.empty.cacheBudget {
            moveToEmptyRules()
            drainReleased()
        }
        // Only the properties that hold a bound value are written; a setter may bind again.
        for binding in bindings.holdingRuleValues { sync(binding) }
        guard ruleCount == 0 else {
            // User code bound values: only the bindings left without rules are forgotten.
            for binding in bindings.inKeyOrder { forgetIfWithoutRules(binding) }
            return
        }
        // Every binding and target at once; released when the resolver is consistent again, as
        // their values' deinits may call back.
        let removed = bindings.removeAll(retiring: applying.isApplying)
        targets.removeAll()
        withExtendedLifetime(removed) {}
    }

    /// Removes bindings through `removeRules`, then settles them in first-bind order.
    private func remove(_ removed: [Binding], removeRules: () -> Void) {
        detachDiffReader()
        removeRules()
        drainReleased()
        settle(removed)
    }

    /// Brings bindings whose rules changed to their value for the applied state, in order,
    /// forgetting those left without rules. Setters run here and may call back: a binding a
    /// setter binds again is kept (with its default), and its new winner written.
    private func settle(_ changed: [Binding]) {
        for binding in changed {
            sync(binding)
            forgetIfWithoutRules(binding)
        }
    }

    /// Forgets `binding` if the store still holds it and it has no rule left (user code that
    /// ran since may have removed it, or bound it again).
    private func forgetIfWithoutRules(_ binding: Binding) {
        if bindings[binding.key] === binding, ruleCount(of: binding) == 0 { forget(binding.key) }
    }

    /// The number of rules of a binding.
    private func ruleCount(of binding: Binding) -> Int {
        var count = 0
        Self.expectSuccess(csr_explain(table, binding.target.id, binding.keyPathID, 0, nil, 0, &count))
        return count
    }
}
