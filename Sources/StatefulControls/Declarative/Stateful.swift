/// A type whose instances move between declarative states (see ``State``), instantly or
/// through a transition.
///
/// Conforming requires nothing; it provides ``stateMachine``, the subject's ``StateMachine``,
/// also named `state` where that name is free:
///
/// ```swift
/// extension SearchView: Stateful {}
/// view.state.apply { $0.awaiting(with: "swift") }.instantly()
/// view.state.apply { $0.locked() }.viaTransition()
/// ```
///
/// On a ``Control``, `state` is the control's ``ControlState``, which hides the declarative
/// one: use `stateMachine` there.
///
/// ```swift
/// extension LoginForm: Stateful {}   // LoginForm is a Control
/// form.stateMachine.apply { $0.locked() }.instantly()
/// ```
@MainActor
public protocol Stateful: AnyObject {
    /// The transition ``PendingApplication/viaTransition(completion:)`` uses. By default,
    /// ``Transition/instant``.
    static var defaultTransition: Transition<Self> { get }
}

extension Stateful {
    /// By default, ``Transition/instant``.
    public static var defaultTransition: Transition<Self> { .instant }

    /// The subject's declarative state machine: ``stateMachine``, by a shorter name (hidden on
    /// a ``Control`` by the control's own ``Control/state``).
    public var state: StateMachine<Self> { stateMachine }

    /// The subject's declarative state machine, by a name no ``Control`` member takes.
    public var stateMachine: StateMachine<Self> { StateMachines.machine(for: self) }

    /// Declares a state; the identifier defaults to the calling function's name.
    public static func state(
        identifier: String = #function, onSet: @escaping @MainActor (Self) -> Void,
        onUpdate: (@MainActor (Self) -> Void)? = nil
    ) -> State<Self> {
        State(identifier: identifier, onSet: onSet, onUpdate: onUpdate)
    }
}

/// The state machines of live subjects, keyed by identity (a subject cannot hold one itself:
/// the protocol adds no storage).
@MainActor
enum StateMachines {
    private struct Entry {
        weak var subject: AnyObject?
        let machine: AnyObject
    }

    private static var entries: [ObjectIdentifier: Entry] = [:]

    static func machine<Subject: Stateful>(for subject: Subject) -> StateMachine<Subject> {
        let key = ObjectIdentifier(subject)
        if let entry = entries[key], entry.subject === subject, let machine = entry.machine as? StateMachine<Subject> {
            return machine
        }
        entries = entries.filter { $0.value.subject != nil }  // forget dead subjects
        let machine = StateMachine(subject)
        entries[key] = Entry(subject: subject, machine: machine)
        return machine
    }
}
