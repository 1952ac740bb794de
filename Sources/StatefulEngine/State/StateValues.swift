// A reusable, ordered list of values by state: the first entry that matches wins.

/// The values a property takes by state, in order: the first entry whose descriptor matches
/// the current state wins — Android's `ColorStateList`, Flutter's `WidgetStateMapper`.
///
/// Write it as a literal or with a builder, name it, and bind it to any property of any target
/// with one call (`Control.setValues(_:for:of:)`, ``StateResolver/setValues(_:for:of:)``):
///
/// ```swift
/// let dotFill: StateValues<Color> = [
///     .containing(.disabled): .grey,
///     .containing(.filled): .white,
///     .always: .clear,
/// ]
/// pin.setValues(dotFill, for: \.fill, of: dot)
/// ```
///
/// Order gives each entry its priority: the first ``StatePriority/required`` (1000), the next
/// 999, and so on down. An entry whose descriptor was given a priority keeps it, and so competes
/// by it, with the list's others and with values bound one by one. Every mode of
/// ``StateDescriptor`` may appear; ``StateDescriptor/always`` makes a last entry that matches
/// whatever no entry before it does.
///
/// The list's values are made once, when the list is: controls that bind one list to the same
/// properties in the same order share one rule table (see "Under the hood" in "State
/// resolution").
public struct StateValues<Value> {
    /// One entry: the states it matches, with the priority it binds with, and its value.
    public struct Entry {
        /// The states the entry matches, with its priority (given, or from its position).
        public let descriptor: StateDescriptor
        /// The value, as the resolver holds it (made once, shared by every binding of the list).
        let rule: RuleValue<Value>
        /// The value.
        public let value: Value
    }

    /// The entries, in order.
    public let entries: [Entry]

    /// The list of `entries`, in order: the first that matches wins.
    ///
    /// - Complexity: O(*n*) in the entries.
    public init(_ entries: [(StateDescriptor, Value)]) {
        self.entries = entries.enumerated().map { index, entry in
            let (descriptor, value) = entry
            let priority = descriptor.hasExplicitPriority ? descriptor : descriptor.with(priority: .required - Int32(index))
            return Entry(descriptor: priority, rule: RuleValue(value), value: value)
        }
    }

    /// The list the builder's entries make, in order: each entry a pair (descriptor, value).
    ///
    /// ```swift
    /// let title = StateValues<String> {
    ///     (.containing(.disabled), "Unavailable")
    ///     if showsProgress { (.containing(.selected), "Sending…") }
    ///     (.always, "Send")
    /// }
    /// ```
    public init(@StateValuesBuilder<Value> _ entries: () -> [(StateDescriptor, Value)]) { self.init(entries()) }

    /// The value for `state`: the matching entry's of the highest priority (the first, unless
    /// priorities were given; between equal ones, the later), or nil when none matches (a bound
    /// property then has its default). What a resolver that binds the list alone writes.
    ///
    /// - Complexity: O(*n*) in the entries.
    public func value(for state: ControlState) -> Value? {
        entries.reversed().filter { $0.descriptor.matches(state) }.max { $0.descriptor.priority < $1.descriptor.priority }?.value
    }
}

extension StateValues: ExpressibleByDictionaryLiteral {
    /// The list of the literal's pairs, in the order written.
    public init(dictionaryLiteral elements: (StateDescriptor, Value)...) { self.init(elements) }
}

extension StateValues: Sendable where Value: Sendable {}
extension StateValues.Entry: Sendable where Value: Sendable {}

/// Builds the entries of a ``StateValues`` list: one pair (descriptor, value) per line, with
/// `if`, `if`–`else` and `for` as in any result builder.
@resultBuilder
public enum StateValuesBuilder<Value> {
    public static func buildExpression(_ entry: (StateDescriptor, Value)) -> [(StateDescriptor, Value)] { [entry] }
    public static func buildBlock(_ parts: [(StateDescriptor, Value)]...) -> [(StateDescriptor, Value)] { parts.flatMap { $0 } }
    public static func buildOptional(_ part: [(StateDescriptor, Value)]?) -> [(StateDescriptor, Value)] { part ?? [] }
    public static func buildEither(first part: [(StateDescriptor, Value)]) -> [(StateDescriptor, Value)] { part }
    public static func buildEither(second part: [(StateDescriptor, Value)]) -> [(StateDescriptor, Value)] { part }
    public static func buildArray(_ parts: [[(StateDescriptor, Value)]]) -> [(StateDescriptor, Value)] { parts.flatMap { $0 } }
}
