/// A mistake rule lint found among a resolver's rules, over the states the resolver can be
/// applied in: a rule that never wins or never matches, or a binding whose rules change
/// nothing (see ``StateResolver/lintRules(reachableStates:)``).
///
/// A diagnostic is a value: test code compares its ``problem``, ``descriptor`` and strings, and
/// people read its ``description``:
///
/// ```text
/// \Swatch.fill of Swatch: containing(selected) @999 -> blue never wins: where it matches, containingAny(disabled | selected) @2000 -> grey wins in [selected], [disabled | selected]
/// ```
public struct RuleDiagnostic: Hashable, Sendable, CustomStringConvertible {
    /// What is wrong.
    public enum Problem: Hashable, Sendable {
        /// The rule matches some of the reachable states but wins none of them: in each, a rule
        /// before it in resolution order (a higher priority, or an equal one set later) wins.
        /// The rules that win there, in resolution order.
        case shadowed(by: [Shadowing])
        /// The rule matches none of the reachable states (a mask of bits the states never have,
        /// `containingAny([])`, a predicate that is always false for them…).
        case neverMatches
        /// The binding resolves to its default value in every reachable state: no rule wins in
        /// any, or every value that wins equals the default. Values are compared only when
        /// their type is `Equatable`; for other types only the first case is reported.
        case alwaysDefault
        /// The binding resolves to one value, other than its default, in every reachable state:
        /// one rule wins in all of them, or the values that win (and the default, if it applies
        /// somewhere) are all equal, for an `Equatable` value type. The property could be set
        /// once instead of bound.
        case neverChanges
    }

    /// A rule that wins in states where a shadowed rule matches.
    public struct Shadowing: Hashable, Sendable {
        /// The winning rule's descriptor.
        public let descriptor: StateDescriptor
        /// The winning rule's value, described.
        public let value: String
        /// The reachable states in which it wins where the shadowed rule matches, in the order
        /// the states were given.
        public let states: [ControlState]

        /// Creates a shadowing record.
        public init(descriptor: StateDescriptor, value: String, states: [ControlState]) {
            (self.descriptor, self.value, self.states) = (descriptor, value, states)
        }
    }

    /// What is wrong.
    public let problem: Problem
    /// The type of the bound target, as `String(describing:)` names it.
    public let target: String
    /// The identity of the bound target (alive when the diagnostic was made), to tell targets of
    /// one type apart.
    public let targetIdentifier: ObjectIdentifier
    /// The bound key path, as written: `\Button.titleColor`.
    public let keyPath: String
    /// The rule at fault, for ``Problem/shadowed(by:)`` and ``Problem/neverMatches``; nil for
    /// the problems of a whole binding.
    public let descriptor: StateDescriptor?
    /// The rule's value for a rule's problem; the value the binding always resolves to for
    /// ``Problem/alwaysDefault`` (its default) and ``Problem/neverChanges``. Described with
    /// `String(describing:)`.
    public let value: String

    /// Creates a diagnostic.
    public init(
        problem: Problem, target: String, targetIdentifier: ObjectIdentifier, keyPath: String,
        descriptor: StateDescriptor?, value: String
    ) {
        self.problem = problem
        self.target = target
        self.targetIdentifier = targetIdentifier
        self.keyPath = keyPath
        self.descriptor = descriptor
        self.value = value
    }

    /// At most this many states are named in a ``description``; the others are counted.
    private static let statesShown = 3

    /// The problem in one sentence, naming the binding, the rule and, for a shadowed rule, the
    /// rules that win where it matches and in which states.
    public var description: String {
        let binding = "\(keyPath) of \(target)"
        let rule = descriptor.map { "\($0) -> \(value)" } ?? value
        switch problem {
        case .shadowed(let shadowings):
            let winners = shadowings.map { shadowing in
                var text = "\(shadowing.descriptor) -> \(shadowing.value) wins"
                if let descriptor, shadowing.descriptor.priority == descriptor.priority {
                    text += " (tied at priority \(descriptor.priority) and set later)"
                }
                return text + " in " + Self.describe(shadowing.states)
            }
            return "\(binding): \(rule) never wins: where it matches, \(winners.joined(separator: "; "))"
        case .neverMatches:
            return "\(binding): \(rule) matches no reachable state"
        case .alwaysDefault:
            return "\(binding): every reachable state resolves to the default \(value): its rules change nothing"
        case .neverChanges:
            return "\(binding): every reachable state resolves to \(value): the binding never changes the value"
        }
    }

    /// `[a], [b], [c] and 2 more states`.
    private static func describe(_ states: [ControlState]) -> String {
        let shown = states.prefix(statesShown).map { "[\($0)]" }.joined(separator: ", ")
        let rest = states.count - statesShown
        return rest > 0 ? "\(shown) and \(rest) more state\(rest == 1 ? "" : "s")" : shown
    }
}
