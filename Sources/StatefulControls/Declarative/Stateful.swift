/// A type whose instances move between declarative states (see ``State``), instantly or
/// through a transition.
///
/// Conforming requires nothing; it provides `state`, a subject's ``StateMachine``:
///
/// ```swift
/// extension SearchView: Stateful {}
/// view.state.apply { $0.awaiting(with: "swift") }.instantly()
/// view.state.apply { $0.locked() }.viaTransition()
/// ```
///
/// A ``Control`` already has a `state` (its ``ControlState``), which hides this one: give
/// declarative states to the views and models around controls.
@MainActor
public protocol Stateful: AnyObject {
    /// The transition ``PendingApplication/viaTransition(completion:)`` uses. By default,
    /// ``Transition/instant``.
    static var defaultTransition: Transition<Self> { get }
}

extension Stateful {
    /// By default, ``Transition/instant``.
    public static var defaultTransition: Transition<Self> { .instant }

    /// The subject's declarative state machine.
    public var state: StateMachine<Self> { StateMachines.machine(for: self) }

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
