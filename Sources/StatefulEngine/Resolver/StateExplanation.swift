internal import CStateResolver

/// Why a key path of a target gets the value it gets in a state: every rule bound to it, in
/// resolution order, matched or not, and the default.
public struct StateExplanation: CustomStringConvertible {
    /// A rule bound to the key path.
    public struct Candidate {
        /// The rule's state descriptor.
        public let descriptor: StateDescriptor
        /// The value the rule binds.
        public let value: Any
        /// Whether the descriptor matches the state explained.
        public let matches: Bool
        /// Larger means set more recently; decides between equal priorities.
        public let sequence: UInt64
    }

    /// The key path explained.
    public let keyPath: AnyKeyPath
    /// The state explained.
    public let state: ControlState
    /// The rules in resolution order: priority descending, then most recently set first.
    public let candidates: [Candidate]
    /// The value captured when the key path was first bound; nil when nothing is bound.
    public let defaultValue: Any?

    /// The winning rule: the first candidate that matches, if any.
    public var winner: Candidate? { candidates.first { $0.matches } }

    /// The value the key path gets: the winner's, or the default.
    public var value: Any? { winner?.value ?? defaultValue }

    /// A readable account, one line per candidate, ending with why the winner won.
    public var description: String {
        var lines = ["\(keyPath) in state [\(state)]:"]
        if candidates.isEmpty { lines.append("  no rules bound") }
        for (index, candidate) in candidates.enumerated() {
            let mark = candidate.matches ? "matches       " : "does not match"
            lines.append("  \(index + 1). \(mark) \(candidate.descriptor) -> \(candidate.value)")
        }
        let matching = candidates.filter(\.matches)
        if let winner = matching.first {
            var reason = "winner: \(winner.descriptor) -> \(winner.value)"
            if matching.count == 1 {
                reason += ", the only matching rule"
            } else if matching[1].descriptor.priority == winner.descriptor.priority {
                reason += ", tied at priority \(winner.descriptor.priority) with \(matching[1].descriptor) and set more recently"
            } else {
                reason += ", the highest priority of \(matching.count) matching rules"
            }
            lines.append(reason)
        } else if let defaultValue {
            lines.append("no rule matches: the default \(defaultValue) applies")
        }
        return lines.joined(separator: "\n")
    }
}

extension StateResolver {
    /// Explains the value `keyPath` of `target` gets in `state` (by default, the applied state).
    ///
    /// - Complexity: O(*r* log *r*) in the pair's rules (listed in resolution order).
    public func explain<Target: AnyObject, Value>(
        _ keyPath: ReferenceWritableKeyPath<Target, Value>, of target: Target, in state: ControlState? = nil
    ) -> StateExplanation {
        checkNotEvaluating("explain(_:of:in:)")
        let state = state ?? appliedState
        guard let binding = binding(keyPath, of: target) else {
            return StateExplanation(keyPath: keyPath, state: state, candidates: [], defaultValue: nil)
        }
        var count = 0
        Self.expectSuccess(csr_explain(table, binding.target.id, binding.keyPathID, 0, nil, 0, &count))
        var raw = [csr_candidate](repeating: csr_candidate(), count: count)
        Self.expectSuccess(evaluating {
            csr_explain(table, binding.target.id, binding.keyPathID, UInt64(state.rawValue), &raw, count, &count)
        })
        let candidates = raw.map {
            StateExplanation.Candidate(descriptor: descriptor(of: $0), value: slab[$0.value].anyValue,
                                       matches: $0.matched, sequence: $0.sequence)
        }
        return StateExplanation(keyPath: keyPath, state: state, candidates: candidates, defaultValue: binding.defaultValue.anyValue)
    }
}
