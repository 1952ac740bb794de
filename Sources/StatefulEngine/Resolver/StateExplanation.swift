// Explain: why a bound value wins in a state, every candidate in resolution order.

internal import CStateResolver

/// Why a key path of a target gets the value it gets in a state: every rule bound to it, in
/// resolution order, matched or not, and the default — typed by the property's value, so the
/// values compare and print as the property's own.
///
/// ```swift
/// let explanation = control.explain(\Label.text, of: label)
/// explanation.value                     // String?
/// explanation.winner?.descriptor        // the rule that won, if any
/// ```
public struct StateExplanation<Value>: CustomStringConvertible {
    /// A rule bound to the key path.
    public struct Candidate {
        /// The rule's state descriptor.
        public let descriptor: StateDescriptor
        /// The value the rule binds.
        public let value: Value
        /// Whether the descriptor matches the state explained.
        public let matches: Bool
        /// Larger means set more recently than the property's other rules; decides between
        /// equal priorities.
        public let sequence: UInt64
    }

    /// The key path explained.
    public let keyPath: AnyKeyPath
    /// The state explained.
    public let state: ControlState
    /// The rules in resolution order: priority descending, then most recently set first.
    public let candidates: [Candidate]
    /// The value captured when the key path was first bound; nil when nothing is bound.
    public let defaultValue: Value?

    /// The winning rule: the first candidate that matches, if any.
    public var winner: Candidate? { candidates.first { $0.matches } }

    /// The value the key path gets: the winner's, or the default; nil when nothing is bound.
    public var value: Value? { winner?.value ?? defaultValue }

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

extension StateExplanation.Candidate: Sendable where Value: Sendable {}
extension StateExplanation: Equatable where Value: Equatable {
    /// Equal when they explain the same state with the same rules, values and default (key paths
    /// compared with `==`).
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.keyPath == rhs.keyPath && lhs.state == rhs.state && lhs.candidates == rhs.candidates
            && lhs.defaultValue == rhs.defaultValue
    }
}
extension StateExplanation.Candidate: Equatable where Value: Equatable {}

extension StateResolver {
    /// Explains the value `keyPath` of `target` gets in `state` (by default, the applied state).
    ///
    /// - Complexity: O(*r* log *r*) in the pair's rules (listed in resolution order).
    public func explain<Target: AnyObject, Value>(
        _ keyPath: ReferenceWritableKeyPath<Target, Value>, of target: Target, in state: ControlState? = nil
    ) -> StateExplanation<Value> {
        checkNotEvaluating("explain(_:of:in:)")
        let state = state ?? appliedState
        guard let binding = binding(keyPath, of: target) else {
            return StateExplanation(keyPath: keyPath, state: state, candidates: [], defaultValue: nil)
        }
        return explanation(of: binding, keyPath: keyPath, in: state) { Self.unbox($0, as: Value.self) }
    }

    /// Explains the value `property` gets in `state` (by default, the applied state), its
    /// values typed `Any`: ``explain(_:of:in:)`` for a property whose type is not known where
    /// it is explained, such as one of ``boundProperties`` in an inspector that lists them all.
    ///
    /// ```swift
    /// for property in resolver.boundProperties {
    ///     let explanation = resolver.explain(property)!
    ///     print(property, explanation.winner?.descriptor as Any, explanation.value as Any)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - property: A property bound here, named as ``boundProperties`` and
    ///     ``changedProperties(from:to:)`` name it, or by any key path that bound a value to it.
    ///   - state: The state explained; nil for ``appliedState``.
    /// - Returns: The explanation, whose ``StateExplanation/keyPath`` is `property`'s; nil
    ///   when `property` is not bound here (or its target was deallocated).
    /// - Complexity: O(*r* log *r*) in the property's rules, as ``explain(_:of:in:)``.
    public func explain(_ property: BoundProperty, in state: ControlState? = nil) -> StateExplanation<Any>? {
        checkNotEvaluating("explain(_:in:)")
        guard let bound = existingTarget(property.target),
            let keyPathID = keyPaths.existingID(property.keyPath, rootClass: type(of: property.target)),
            let binding = bindings[Self.key(bound.id, keyPathID)]
        else { return nil }
        return explanation(of: binding, keyPath: property.keyPath, in: state ?? appliedState) { $0.anyValue }
    }

    /// The candidates of `binding` in `state`, in resolution order, with its default, each value
    /// taken out of its box by `unbox`.
    private func explanation<Value>(
        of binding: Binding, keyPath: AnyKeyPath, in state: ControlState, unbox: (AnyValueBox) -> Value
    ) -> StateExplanation<Value> {
        var count = 0
        Self.expectSuccess(csr_explain(table, binding.target.id, binding.keyPathID, 0, nil, 0, &count))
        var raw = [csr_candidate](repeating: csr_candidate(), count: count)
        Self.expectSuccess(
            evaluating {
                csr_explain(table, binding.target.id, binding.keyPathID, UInt64(state.rawValue), &raw, count, &count)
            })
        var candidates = raw.map {
            StateExplanation.Candidate(
                descriptor: descriptor(of: $0.rule), value: unbox(slab.box($0.rule.value, of: binding)), matches: $0.matched,
                sequence: $0.rule.sequence)
        }
        if let computed = computedValues(of: binding) {
            // The closure's rules, one per state computed, shown as the one rule the closure is,
            // where the first of them stood; its value is the closure's for the state explained.
            let first = candidates.firstIndex { computed.owns($0.descriptor) } ?? candidates.endIndex
            let sequence = candidates.filter { computed.owns($0.descriptor) }.map(\.sequence).max() ?? 0
            candidates.removeAll { computed.owns($0.descriptor) }
            let closure = StateExplanation.Candidate(
                descriptor: computed.descriptor, value: unbox(computed.evaluate(state)), matches: true, sequence: sequence)
            candidates.insert(closure, at: min(first, candidates.endIndex))
        }
        return StateExplanation(keyPath: keyPath, state: state, candidates: candidates, defaultValue: unbox(binding.defaultBox))
    }

    /// The value of a box bound through a key path to `Value` (one binding per property: the
    /// same property has one value type).
    private static func unbox<Value>(_ box: AnyValueBox, as type: Value.Type) -> Value {
        guard let box = box as? ValueBox<Value> else {
            internalInconsistency("a value of \(Swift.type(of: box)) bound where \(Value.self) is expected")
        }
        return box.value
    }
}
