/// Describes the states a bound value applies to: a matching mode, a state mask and a priority.
///
/// When several descriptors of one (target, key path) match the current state, the highest
/// priority wins; between equal priorities the value set most recently wins, as CSS breaks
/// specificity ties by source order. With an empty mask the modes follow their formulas:
/// `containing([])` and `containingNone([])` always match, `notContaining([])` and
/// `containingAny([])` never do, and `exactly([])` matches only ``ControlState/normal``.
///
/// A descriptor's identity is its mode, state, priority and (for a custom predicate) name:
/// `.containingAny(x)` and `.containingNone(x)` are different rules.
public struct StateDescriptor: Hashable, Sendable {
    @usableFromInline
    enum Mode: Hashable, Sendable {
        case exactly, containing, notContaining, containingAny, containingNone
        case custom(String)
    }

    @usableFromInline let mode: Mode

    /// The state mask the mode compares the current state with (empty for a custom predicate).
    public let state: ControlState

    /// The priority: the highest among matching descriptors wins.
    public let priority: Int32

    @usableFromInline let predicate: (@Sendable (ControlState) -> Bool)?

    /// Whether the priority was given, not the mode's default: a ``StateValues`` list gives the
    /// others priorities by their order. Not part of the identity.
    let hasExplicitPriority: Bool

    private init(
        _ mode: Mode, _ state: ControlState, _ priority: StatePriority?, default defaultPriority: StatePriority,
        _ predicate: (@Sendable (ControlState) -> Bool)? = nil
    ) {
        (self.mode, self.state, self.predicate) = (mode, state, predicate)
        (self.priority, hasExplicitPriority) = ((priority ?? defaultPriority).rawValue, priority != nil)
    }

    /// The descriptor with priority `priority`, given.
    func with(priority: StatePriority) -> StateDescriptor {
        StateDescriptor(mode, state, priority, default: priority, predicate)
    }

    /// The state bits whose value can change whether the descriptor matches: the mask for the
    /// mask modes, every bit for `exactly` and custom predicates.
    var sensitiveBits: UInt {
        switch mode {
        case .exactly, .custom: ~0
        case .containing, .notContaining, .containingAny, .containingNone: state.rawValue
        }
    }

    /// Matches when the current state is exactly `state`. Default priority 1000
    /// (``StatePriority/required``).
    public static func exactly(_ state: ControlState, priority: StatePriority? = nil) -> StateDescriptor {
        StateDescriptor(.exactly, state, priority, default: .required)
    }

    /// Matches when the current state contains every bit of `state` (the original library's
    /// "for all states contained"). Default priority 999 (`.required - 1`).
    public static func containing(_ state: ControlState, priority: StatePriority? = nil) -> StateDescriptor {
        StateDescriptor(.containing, state, priority, default: .required - 1)
    }

    /// Matches when the current state lacks at least one bit of `state` (the original
    /// library's "inverted" state). Default priority 750 (``StatePriority/high``).
    public static func notContaining(_ state: ControlState, priority: StatePriority? = nil) -> StateDescriptor {
        StateDescriptor(.notContaining, state, priority, default: .high)
    }

    /// Matches when the current state shares at least one bit with `state`. Default priority 500
    /// (``StatePriority/default``).
    public static func containingAny(_ state: ControlState, priority: StatePriority? = nil) -> StateDescriptor {
        StateDescriptor(.containingAny, state, priority, default: .default)
    }

    /// Matches when the current state shares no bit with `state`. Default priority 500
    /// (``StatePriority/default``).
    public static func containingNone(_ state: ControlState, priority: StatePriority? = nil) -> StateDescriptor {
        StateDescriptor(.containingNone, state, priority, default: .default)
    }

    /// Matches every state: `containing([])`, for a list's last value (see ``StateValues``).
    public static var always: StateDescriptor { .containing([]) }

    /// Matches when `predicate` returns true for the current state.
    ///
    /// The name is the descriptor's identity: setting a value again under the same name and
    /// priority replaces the earlier one. The predicate must depend on the state alone, since
    /// resolutions are cached per state.
    public static func custom(
        _ name: String, priority: StatePriority,
        _ predicate: @escaping @Sendable (ControlState) -> Bool
    ) -> StateDescriptor {
        StateDescriptor(.custom(name), [], priority, default: priority, predicate)
    }

    // The same with a priority of type `Int32` (the seeds' spelling, for a variable).

    @_disfavoredOverload
    public static func exactly(_ state: ControlState, priority: Int32) -> StateDescriptor {
        exactly(state, priority: StatePriority(priority))
    }

    @_disfavoredOverload
    public static func containing(_ state: ControlState, priority: Int32) -> StateDescriptor {
        containing(state, priority: StatePriority(priority))
    }

    @_disfavoredOverload
    public static func notContaining(_ state: ControlState, priority: Int32) -> StateDescriptor {
        notContaining(state, priority: StatePriority(priority))
    }

    @_disfavoredOverload
    public static func containingAny(_ state: ControlState, priority: Int32) -> StateDescriptor {
        containingAny(state, priority: StatePriority(priority))
    }

    @_disfavoredOverload
    public static func containingNone(_ state: ControlState, priority: Int32) -> StateDescriptor {
        containingNone(state, priority: StatePriority(priority))
    }

    @_disfavoredOverload
    public static func custom(
        _ name: String, priority: Int32, _ predicate: @escaping @Sendable (ControlState) -> Bool
    ) -> StateDescriptor {
        custom(name, priority: StatePriority(priority), predicate)
    }

    /// The predicate's name for a custom descriptor, nil for the other modes.
    public var name: String? {
        if case .custom(let name) = mode { return name }
        return nil
    }

    /// Whether the descriptor matches `current`: the library's one Swift statement of the
    /// matching formulas (the C resolver has its own, tested against this one).
    ///
    /// - Complexity: O(1) for the five mask modes; a custom descriptor calls its predicate.
    @inlinable
    public func matches(_ current: ControlState) -> Bool {
        switch mode {
        case .exactly: current == state
        case .containing: current.isSuperset(of: state)
        case .notContaining: !current.isSuperset(of: state)
        case .containingAny: !current.isDisjoint(with: state)
        case .containingNone: current.isDisjoint(with: state)
        case .custom: predicate!(current)
        }
    }

    public static func == (lhs: StateDescriptor, rhs: StateDescriptor) -> Bool {
        lhs.mode == rhs.mode && lhs.state == rhs.state && lhs.priority == rhs.priority
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(mode)
        hasher.combine(state)
        hasher.combine(priority)
    }
}

extension StateDescriptor: CustomStringConvertible {
    /// The descriptor as it is written, e.g. `containing(selected | focused) @999`.
    public var description: String {
        let body =
            switch mode {
            case .exactly: "exactly(\(state))"
            case .containing: "containing(\(state))"
            case .notContaining: "notContaining(\(state))"
            case .containingAny: "containingAny(\(state))"
            case .containingNone: "containingNone(\(state))"
            case .custom(let name): "custom(\"\(name)\")"
            }
        return "\(body) @\(priority)"
    }
}
