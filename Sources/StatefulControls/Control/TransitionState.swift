// A control's part that holds its open transitions: how deeply they nest, the events sent
// meanwhile, and who observes them.

/// A control's transitions: the number open (they nest) and the events sent while one is
/// open, in the order they were sent, handed back when the outermost one closes.
struct TransitionState {
    /// The number of transitions open.
    private(set) var depth = 0
    /// The events sent while a transition was open.
    private(set) var queuedEvents: [Event] = []
    /// The observers of ``Control/observeTransitions(_:)``, made with the first one (a control
    /// nobody observes allocates nothing for them).
    var observers: WeakTokens<TransitionObserver>?

    /// Whether a transition is open.
    var isOpen: Bool { depth > 0 }

    /// Opens a transition (inside those open).
    mutating func open() { depth += 1 }

    /// Keeps `event` until the outermost transition closes.
    mutating func queue(_ event: Event) { queuedEvents.append(event) }

    /// Closes the innermost transition (one must be open); returns the queued events, no longer
    /// kept, when it was the outermost, nil while others stay open.
    mutating func close() -> [Event]? {
        depth -= 1
        guard depth == 0 else { return nil }
        let events = queuedEvents
        queuedEvents = []
        return events
    }
}
