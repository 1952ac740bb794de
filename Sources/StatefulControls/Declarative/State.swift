/// A declarative state of a ``Stateful`` subject: the mutations that put the subject in it.
///
/// Declare states as static functions of the subject's type; they may take parameters:
///
/// ```swift
/// extension SearchView {
///     static func awaiting(with keyword: String) -> State<SearchView> {
///         state { $0.keyword.text = keyword; $0.start.isEnabled = true }
///     }
///     static func locked() -> State<SearchView> {
///         state { $0.start.isEnabled = false }
///     }
/// }
/// ```
public struct State<Subject: AnyObject> {
    /// The state's identity: by default the name of the function that declared it, such as
    /// `awaiting(with:)` (parameters do not change it).
    public let identifier: String
    let onSet: @MainActor (Subject) -> Void
    let onUpdate: (@MainActor (Subject) -> Void)?

    /// Creates a state. `onSet` runs when the subject enters the state; `onUpdate`, if given,
    /// runs after it and again whenever the state is applied while current.
    public init(
        identifier: String = #function, onSet: @escaping @MainActor (Subject) -> Void,
        onUpdate: (@MainActor (Subject) -> Void)? = nil
    ) {
        self.identifier = identifier
        self.onSet = onSet
        self.onUpdate = onUpdate
    }
}

/// How a new state's mutations are carried out: the transition receives the subject, the
/// mutations (which it must call exactly once) and a completion (which it must call once,
/// with whether it finished).
public struct Transition<Subject: AnyObject> {
    /// The transition's body.
    public typealias Body =
        @MainActor (
            _ subject: Subject, _ mutations: @escaping @MainActor () -> Void,
            _ completion: @escaping @MainActor (_ finished: Bool) -> Void
        ) -> Void

    let body: Body

    /// Creates a transition.
    public init(_ body: @escaping Body) { self.body = body }

    /// Runs the mutations, then completes, synchronously.
    public static var instant: Transition<Subject> {
        Transition { _, mutations, completion in
            mutations()
            completion(true)
        }
    }
}

/// A transition that broke its contract.
public struct TransitionError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What the transition did wrong, in words.
    public let description: String

    static func mutationsCalledTwice(_ identifier: String) -> TransitionError {
        TransitionError(
            description: "the transition to state \(identifier) called its mutations more than once; the extra call was ignored")
    }

    static func completedWithoutMutations(_ identifier: String) -> TransitionError {
        TransitionError(
            description: "the transition to state \(identifier) completed without calling its mutations; the state was not applied")
    }

    static func completedTwice(_ identifier: String) -> TransitionError {
        TransitionError(
            description: "the transition to state \(identifier) called its completion more than once; the extra call was ignored")
    }
}
