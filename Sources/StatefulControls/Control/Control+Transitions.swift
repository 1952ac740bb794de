// How a control batches factor changes and events in transitions, and reports them to observers
// (over its TransitionState part).

extension Control {
    /// Whether a transition is open.
    public var isInTransition: Bool { transitions.isOpen }

    /// Opens a transition: factor changes are not applied and events sent are queued until the
    /// outermost transition is committed (or ended). Transitions nest.
    public func beginTransition() {
        transitions.open()
        if transitions.observers != nil { reportTransition(.began, depth: transitions.depth) }
    }

    /// Closes a transition. Closing the outermost one applies the state once, then sends the
    /// queued events in the order they were sent.
    ///
    /// Stops the program (a programmer error, in release builds too) when no transition is
    /// open: pair every ``beginTransition()`` with one commit or end, or use
    /// ``performTransition(commit:_:)``.
    public func commitTransition() {
        finishTransition(commit: true)
    }

    /// Closes a transition without applying. Closing the outermost one drops the queued events;
    /// the state is applied at the next factor change or ``updateState()``. Stops the program
    /// when no transition is open, as ``commitTransition()`` does.
    public func endTransition() {
        finishTransition(commit: false)
    }

    /// Runs `changes` inside a transition, then commits it (or ends it when `commit` is false),
    /// also when `changes` throws.
    public func performTransition<Result>(commit: Bool = true, _ changes: () throws -> Result) rethrows -> Result {
        beginTransition()
        defer { finishTransition(commit: commit) }
        return try changes()
    }

    private func finishTransition(commit: Bool) {
        guard transitions.isOpen else {
            misuse(
                "\(type(of: self)).\(commit ? "commitTransition" : "endTransition")() without beginTransition(); pair each beginTransition() with one commit or end, or use performTransition(_:)"
            )
        }
        let depth = transitions.depth
        defer { if transitions.observers != nil { reportTransition(commit ? .committed : .ended, depth: depth) } }
        guard let events = transitions.close(), commit else { return }
        applyState()
        for event in events { dispatch(event) }
    }

    /// Calls `handler` each time a transition of this control begins, commits or ends — nested
    /// ones too, with their depth — until the returned token is cancelled or released: what a
    /// debugger or an inspector shows as the control's transitions happen.
    ///
    /// A beginning is reported once the transition is open; a commit or an end once it is
    /// closed, and for the outermost commit after its state was applied and its queued events
    /// sent (``appliedState`` is the state it applied). The handler may call the control,
    /// transitions included: a transition it begins is reported in turn.
    ///
    /// ```swift
    /// let observer = pin.observeTransitions { change in print("pin: \(change)") }
    /// pin.insertText("1")   // pin: began (depth 1), then pin: committed (depth 1)
    /// ```
    ///
    /// - Returns: A token; the observation ends when it is cancelled or released.
    /// - Complexity: O(1); each transition then calls every observer.
    public func observeTransitions(_ handler: @escaping @MainActor (TransitionChange) -> Void) -> TransitionObserver {
        let observer = TransitionObserver(handler)
        WeakTokens.append(observer, to: &transitions.observers)
        return observer
    }

    /// Calls the transition observers (out of line: only a control someone observes reports).
    @inline(never)
    private func reportTransition(_ kind: TransitionChange.Kind, depth: Int) {
        guard let observers = transitions.observers else { return }  // a handler may begin another
        let change = TransitionChange(kind: kind, depth: depth)
        observers.forEach { $0.handler(change) }
    }
}

/// A transition of a control that began, committed or ended, as
/// ``Control/observeTransitions(_:)`` reports it.
public struct TransitionChange: Hashable, Sendable, CustomStringConvertible {
    /// What happened to the transition.
    public enum Kind: Hashable, Sendable {
        /// It began (``Control/beginTransition()``): factor changes wait, events are queued.
        case began
        /// It was committed (``Control/commitTransition()``); the outermost one applied the
        /// state, then sent the queued events.
        case committed
        /// It was ended without applying (``Control/endTransition()``); the outermost one
        /// dropped the queued events.
        case ended
    }

    /// What happened.
    public let kind: Kind
    /// How deeply the transition nests: 1 for the outermost.
    public let depth: Int

    /// Creates a change.
    public init(kind: Kind, depth: Int) {
        (self.kind, self.depth) = (kind, depth)
    }

    /// `began (depth 1)`, `committed (depth 2)`, ….
    public var description: String { "\(kind) (depth \(depth))" }
}

/// An observation of a control's transitions, returned by ``Control/observeTransitions(_:)``;
/// it lasts until ``ObservationToken/cancel()`` is called or the token is released.
@MainActor
public final class TransitionObserver: ObservationToken {
    let handler: @MainActor (TransitionChange) -> Void
    init(_ handler: @escaping @MainActor (TransitionChange) -> Void) { self.handler = handler }
}
