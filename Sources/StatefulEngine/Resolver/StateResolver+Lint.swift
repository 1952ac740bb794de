// Rule lint: the rules that can never win, never match or never change a value, over the states a
// resolver can be applied in.

internal import CStateResolver

extension StateResolver {
    /// Finds the rules that can never take effect over `reachableStates`, the states this
    /// resolver can be applied in: rules that match some of them but win none (with the rules
    /// that win there), rules that match none, bindings that resolve to their default in every
    /// one of them, and bindings whose value never changes across them.
    ///
    /// Values are compared for equality only when their type is `Equatable` (checked at run
    /// time); for other types a binding is reported as ``RuleDiagnostic/Problem/alwaysDefault``
    /// only when no rule wins in any state, and as ``RuleDiagnostic/Problem/neverChanges`` only
    /// when one rule wins in every state. Bindings of deallocated targets are skipped. Nothing
    /// is written, no rule changes, and the resolution caches are neither read nor changed (the
    /// C pass matches each rule against 64 states a machine word). Custom predicates run.
    ///
    /// Diagnostics come in the order ``apply(_:)`` writes bindings; a binding's rule problems
    /// in resolution order, then its own. An empty sequence of states reports nothing.
    ///
    /// - Parameter reachableStates: The states to check, each once (a duplicate is checked
    ///   twice and changes nothing).
    /// - Throws: ``ResolverError/outOfMemory`` when the report cannot be allocated (nothing
    ///   changed).
    /// - Complexity: O(*s* × *r*) for *s* states and *r* rules, in one pass over the states
    ///   in C; the report takes one bit per rule and state. Describing values and key paths
    ///   costs only for the diagnostics found.
    public func lintRules(reachableStates: some Sequence<ControlState>) throws(ResolverError) -> [RuleDiagnostic] {
        checkNotEvaluating("lintRules(reachableStates:)")
        let states = reachableStates.map { UInt64($0.rawValue) }
        guard !states.isEmpty else { return [] }
        var report: UnsafeMutablePointer<csr_lint_report>?
        let status = evaluating { csr_lint(table, states, states.count, &report) }
        try ResolverError.check(status)
        guard let report else { throw .corrupted }
        defer { csr_lint_free(report) }
        var linter = RuleLinter(resolver: self, states: states, wordsPerRule: report.pointee.words_per_rule)
        for index in 0..<report.pointee.binding_count {
            linter.lint(report.pointee.bindings[index])
        }
        return linter.diagnostics
    }
}

/// Turns a `csr_lint` report into diagnostics.
private struct RuleLinter {
    let resolver: StateResolver
    let states: [UInt64]
    let wordsPerRule: Int
    var diagnostics: [RuleDiagnostic] = []
    /// Descriptions made once per lint: key paths, and target types by class.
    private var keyPaths: [AnyKeyPath: String] = [:]
    private var types: [ObjectIdentifier: String] = [:]

    init(resolver: StateResolver, states: [UInt64], wordsPerRule: Int) {
        (self.resolver, self.states, self.wordsPerRule) = (resolver, states, wordsPerRule)
    }

    mutating func lint(_ reported: csr_lint_binding) {
        guard let binding = resolver.bindings[StateResolver.key(reported.target, reported.key_path)],
            let object = binding.target.object
        else { return }
        let rules = UnsafeBufferPointer(start: reported.rules, count: Int(reported.rule_count))
        // The problems of rules, in resolution order.
        var winners: [Int] = []
        var defaultStates = states.count
        for (index, rule) in rules.enumerated() {
            defaultStates -= rule.wins
            if rule.wins > 0 {
                winners.append(index)
            } else if rule.matches == 0 {
                append(.neverMatches, binding, object, rule: rule)
            } else {
                append(.shadowed(by: shadowings(of: index, in: rules, of: binding)), binding, object, rule: rule)
            }
        }
        // The problems of the binding: the values it resolves to across the states.
        let defaultValue = binding.defaultBox
        let winningValues = winners.map { resolver.slab.box(rules[$0].rule.value, of: binding) }
        if winningValues.allSatisfy({ $0.isEqual(to: defaultValue) == true }) {
            append(.alwaysDefault, binding, object, value: defaultValue)
        } else if let first = winningValues.first,
            (winningValues.count == 1 && defaultStates == 0)
                || (winningValues.allSatisfy { $0.isEqual(to: first) == true }
                    && (defaultStates == 0 || defaultValue.isEqual(to: first) == true))
        {
            append(.neverChanges, binding, object, value: first)
        }
    }

    /// The rules that win where the rule at `index` matches, with those states.
    private func shadowings(
        of index: Int, in rules: UnsafeBufferPointer<csr_lint_rule>, of binding: Binding
    ) -> [RuleDiagnostic.Shadowing] {
        var statesByWinner: [Int: [ControlState]] = [:]
        let matched = rules[index].matched!
        for word in 0..<wordsPerRule {
            var bits = matched[word]
            while bits != 0 {
                let state = word * 64 + bits.trailingZeroBitCount
                bits &= bits - 1
                // The winner is the first rule that matches: one before this one.
                let winner = (0..<index).first { rules[$0].matched[word] & (1 << (state % 64)) != 0 }!
                statesByWinner[winner, default: []].append(ControlState(rawValue: UInt(states[state])))
            }
        }
        return statesByWinner.keys.sorted().map { winner in
            RuleDiagnostic.Shadowing(
                descriptor: resolver.descriptor(of: rules[winner].rule),
                value: String(describing: resolver.slab.box(rules[winner].rule.value, of: binding).anyValue),
                states: statesByWinner[winner]!)
        }
    }

    private mutating func append(
        _ problem: RuleDiagnostic.Problem, _ binding: Binding, _ object: AnyObject,
        rule: csr_lint_rule
    ) {
        append(
            problem, binding, object, descriptor: resolver.descriptor(of: rule.rule),
            value: String(describing: resolver.slab.box(rule.rule.value, of: binding).anyValue))
    }

    private mutating func append(
        _ problem: RuleDiagnostic.Problem, _ binding: Binding, _ object: AnyObject,
        value: AnyValueBox
    ) {
        append(problem, binding, object, descriptor: nil, value: String(describing: value.anyValue))
    }

    private mutating func append(
        _ problem: RuleDiagnostic.Problem, _ binding: Binding, _ object: AnyObject,
        descriptor: StateDescriptor?, value: String
    ) {
        let anyKeyPath = binding.writer.keyPath
        let keyPath = keyPaths[anyKeyPath] ?? String(describing: anyKeyPath)
        keyPaths[anyKeyPath] = keyPath
        let typeID = ObjectIdentifier(type(of: object))
        let target = types[typeID] ?? String(describing: type(of: object))
        types[typeID] = target
        diagnostics.append(
            RuleDiagnostic(
                problem: problem, target: target, targetIdentifier: ObjectIdentifier(object),
                keyPath: keyPath, descriptor: descriptor, value: value))
    }
}
