// How a control batches factor changes and events in transitions (over its TransitionState part).

extension Control {
    /// Whether a transition is open.
    public var isInTransition: Bool { transitions.isOpen }

    /// Opens a transition: factor changes are not applied and events sent are queued until the
    /// outermost transition is committed (or ended). Transitions nest.
    public func beginTransition() {
        transitions.open()
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
        guard let events = transitions.close(), commit else { return }
        applyState()
        for event in events { dispatch(event) }
    }
}
