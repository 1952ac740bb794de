extension Control {
    /// The states the control can be in: every combination of the bits it can produce — its
    /// built-in factors (``ControlState/highlighted``, ``ControlState/disabled``,
    /// ``ControlState/selected``, ``ControlState/focused``) and the custom states registered on
    /// it — in ascending order of their bits. A bit nothing registers is in none of them.
    ///
    /// Every combination counts, even one the control's logic may never produce (a custom state
    /// that is on only while another is off): the factors are taken as independent.
    ///
    /// - Complexity: O(2^*f*) for the *f* factors: 4 built-in plus one per registered state.
    public var reachableStates: [ControlState] {
        let factors: [ControlState] = [.highlighted, .disabled, .selected, .focused] + customStates.map(\.state)
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
        do {
            return try resolver.lintRules(reachableStates: reachableStates)
        } catch {
            fatalError("StatefulControls: \(type(of: self)).lintRules(): \(error)")
        }
    }
}
