// Declarative states: the state machine that applies them, running onSet and onUpdate.

import Foundation

/// Applies declarative states to one subject: `subject.state`.
///
/// Applying the current state again runs its `onUpdate` (or nothing when it has none);
/// applying another state runs its `onSet`, then its `onUpdate`. While a transition is in
/// flight, further applications wait in order and run after it completes.
@MainActor
public final class StateMachine<Subject: AnyObject> {
    private weak var subject: Subject?
    private var queue: [() -> Void] = []
    private var isTransitioning = false

    /// The identifier of the state the subject is in; nil before the first application.
    public private(set) var currentIdentifier: String?

    /// Receives transition contract violations (they also reach the application's
    /// completion). By default writes them to standard error.
    public static var violationHandler: @MainActor (TransitionError) -> Void {
        get { violationReporter.handler }
        set { violationReporter.handler = newValue }
    }

    init(_ subject: Subject) { self.subject = subject }

    /// Prepares to apply the state `builder` returns (it receives the subject's type, where
    /// the states are declared).
    public func apply(_ builder: (Subject.Type) -> State<Subject>) -> PendingApplication<Subject> {
        PendingApplication(machine: self, state: builder(Subject.self))
    }

    func run(_ state: State<Subject>, transition: Transition<Subject>?, completion: (@MainActor (Result<Void, TransitionError>) -> Void)?) {
        guard !isTransitioning else {
            queue.append { [unowned self] in run(state, transition: transition, completion: completion) }
            return
        }
        guard let subject else { return }
        let isCurrent = state.identifier == currentIdentifier
        let mutations: (@MainActor (Subject) -> Void)?
        if isCurrent {
            mutations = state.onUpdate
        } else {
            mutations = { @MainActor subject in
                state.onSet(subject)
                state.onUpdate?(subject)
            }
        }
        guard let mutations else {
            completion?(.success(()))
            return
        }
        guard let transition else {
            // Current before the mutations run: an onSet that applies another state leaves
            // that one current.
            currentIdentifier = state.identifier
            mutations(subject)
            completion?(.success(()))
            return
        }
        isTransitioning = true
        var mutated = false, completed = false
        var violation: TransitionError?
        transition.body(
            subject,
            { [weak self] in
                guard !mutated else {
                    violation = violation ?? .mutationsCalledTwice(state.identifier)
                    return Self.report(.mutationsCalledTwice(state.identifier))
                }
                mutated = true
                self?.currentIdentifier = state.identifier
                mutations(subject)
            },
            { [weak self] _ in
                guard !completed else { return Self.report(.completedTwice(state.identifier)) }
                completed = true
                if !mutated {
                    violation = .completedWithoutMutations(state.identifier)
                    Self.report(violation!)
                }
                completion?(violation.map { .failure($0) } ?? .success(()))
                self?.finishTransition()
            })
    }

    private func finishTransition() {
        isTransitioning = false
        while !isTransitioning, !queue.isEmpty { queue.removeFirst()() }
    }

    private static func report(_ violation: TransitionError) {
        violationHandler(violation)
    }
}

/// Holds the process-wide violation handler for every `StateMachine` specialisation.
@MainActor
let violationReporter = ViolationReporter()

@MainActor
final class ViolationReporter {
    var handler: @MainActor (TransitionError) -> Void = { violation in
        FileHandle.standardError.write(Data("StatefulControls: \(violation)\n".utf8))
    }
}

/// A state about to be applied: choose how with ``instantly(completion:)`` or
/// ``viaTransition(_:completion:)``.
@MainActor
public struct PendingApplication<Subject: AnyObject> {
    let machine: StateMachine<Subject>
    let state: State<Subject>

    /// Applies the state now (or, if a transition is in flight, right after it).
    /// `completion` reports when the application finished.
    public func instantly(completion: (@MainActor (Result<Void, TransitionError>) -> Void)? = nil) {
        machine.run(state, transition: nil, completion: completion)
    }

    /// Applies the state through `transition`. `completion` reports when it finished, or the
    /// transition's contract violation.
    public func viaTransition(
        _ transition: Transition<Subject>,
        completion: (@MainActor (Result<Void, TransitionError>) -> Void)? = nil
    ) {
        machine.run(state, transition: transition, completion: completion)
    }
}

extension PendingApplication where Subject: Stateful {
    /// Applies the state through the subject type's ``Stateful/defaultTransition``.
    public func viaTransition(completion: (@MainActor (Result<Void, TransitionError>) -> Void)? = nil) {
        viaTransition(Subject.defaultTransition, completion: completion)
    }
}
