// How a control lists its reachable states and lints its rules over them.

extension Control {
    /// The states the control can be in: every combination of the bits it can produce — its
    /// built-in factors (``ControlState/highlighted``, ``ControlState/disabled``,
    /// ``ControlState/selected``, ``ControlState/focused``) and the custom states registered on
    /// it — in ascending order of their bits. A bit nothing registers is in none of them.
    ///
    /// Every combination counts, even one the control's logic may never produce (a custom state
    /// that is on only while another is off): the factors are taken as independent. A control
    /// with many custom states has more combinations than can be listed: past 20 factors (16
    /// custom states, a million combinations) this stops the program with a message; list the
    /// states it really reaches and pass them to ``lintRules(reachableStates:)``.
    ///
    /// - Complexity: O(2^*f*) for the *f* factors: 4 built-in plus one per registered state.
    public var reachableStates: [ControlState] {
        let factors: [ControlState] = [.highlighted, .disabled, .selected, .focused] + registeredCustomStates
        guard factors.count <= 20 else {
            misuse(
                "\(type(of: self)).reachableStates: \(factors.count) factors (4 built-in, \(registeredStates.all.count) custom states) make 2^\(factors.count) states, too many to list; pass the states the control really reaches to lintRules(reachableStates:)"
            )
        }
        var states: [ControlState] = [[]]
        states.reserveCapacity(1 << factors.count)
        for factor in factors {
            for state in states { states.append(state.union(factor)) }
        }
        return states.sorted { $0.rawValue < $1.rawValue }
    }

    /// Finds the rules of this control that can never take effect over its
    /// ``reachableStates``: rules that match some states but win none (with the rules that win
    /// there), rules that match none (such as a rule on a custom state the control never
    /// registers), and bindings that resolve to their default, or to one value, in every
    /// reachable state. See ``StateResolver/lintRules(reachableStates:)`` for how values are
    /// compared.
    ///
    /// ```swift
    /// for diagnostic in button.lintRules() { print(diagnostic) }
    /// ```
    ///
    /// Stops the program, with a message, if the resolver runs out of memory for the report
    /// (as ``setValue(_:for:of:when:)`` does); ``StateResolver/lintRules(reachableStates:)``
    /// throws it instead.
    ///
    /// - Complexity: O(2^*f* × *r*) for the control's *f* factors and *r* bound rules.
    public func lintRules() -> [RuleDiagnostic] {
        lintRules(reachableStates: reachableStates)
    }

    /// Finds the rules of this control that can never take effect over `reachableStates`, the
    /// states it can really be in: what ``lintRules()`` does over ``reachableStates``, for a
    /// control whose states are not all combinations of its factors (or too many to list).
    ///
    /// ```swift
    /// let states: [ControlState] = [[], [.focused], [.focused, editing]]
    /// for diagnostic in field.lintRules(reachableStates: states) { print(diagnostic) }
    /// ```
    ///
    /// Stops the program, with a message, if the resolver runs out of memory for the report.
    ///
    /// - Parameter reachableStates: The states to check, each once.
    /// - Complexity: O(*s* × *r*) for *s* states and *r* bound rules.
    public func lintRules(reachableStates: some Sequence<ControlState>) -> [RuleDiagnostic] {
        do {
            return try resolver.lintRules(reachableStates: reachableStates)
        } catch {
            stop(for: error, in: "\(type(of: self)).lintRules(reachableStates:)")
        }
    }
}
