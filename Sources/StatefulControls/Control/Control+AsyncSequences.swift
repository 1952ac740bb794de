// A control's events and applied states as async sequences.

extension Control {
    /// The events of `events` this control sends, as they are sent, for `for await`:
    ///
    /// ```swift
    /// for await event in button.events(for: .primaryActionTriggered) {
    ///     submit(event)
    /// }
    /// ```
    ///
    /// The sequence is a closure action registered for `events` (see ``addAction(_:for:)``):
    /// it sees the events every other registration sees, in the same order. It ends when the
    /// control is deallocated, and its action is removed when the iterating task is cancelled
    /// or the sequence is released. The control is not kept alive by the sequence.
    ///
    /// - Parameters:
    ///   - events: The events to deliver (any of them).
    ///   - limit: Events not yet consumed are buffered up to `limit`; beyond it the oldest are
    ///     dropped (`AsyncStream`'s `bufferingNewest`), so a consumer that stalls never makes
    ///     memory grow without bound.
    public func events(for events: ControlEvents, bufferingNewest limit: Int = 64) -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(limit))
        let end = StreamEnd(continuation)
        let action = Action { action in
            if let event = action.event { end.continuation.yield(event) }
        }
        addAction(action, for: events)
        let identifier = action.identifier
        continuation.onTermination = { [weak self] _ in
            Task { @MainActor in self?.removeAction(identifiedBy: identifier) }
        }
        return stream
    }

    /// The control's applied state (``appliedState``) each time it changes, for `for await`;
    /// not the state at the time of the call.
    ///
    /// It ends when the control is deallocated, and its subscription is cancelled when the
    /// iterating task is cancelled or the sequence is released. The control is not kept alive
    /// by the sequence.
    ///
    /// - Parameter limit: States not yet consumed are buffered up to `limit`; beyond it the
    ///   oldest are dropped (a consumer that falls behind still sees the latest state last).
    public func appliedStates(bufferingNewest limit: Int = 16) -> AsyncStream<ControlState> {
        let (stream, continuation) = AsyncStream.makeStream(of: ControlState.self, bufferingPolicy: .bufferingNewest(limit))
        let end = StreamEnd(continuation)
        let subscription = StateSubscription(nil, appliedState: appliedState) { end.continuation.yield($0) }
        WeakTokens.append(subscription, to: &subscriptions.tokens)
        subscriptions.streams.append(subscription)  // the control keeps it while it lives
        continuation.onTermination = { [weak self, weak subscription] _ in
            Task { @MainActor in
                subscription?.cancel()
                self?.subscriptions.streams.removeAll { $0 === subscription }
            }
        }
        return stream
    }
}

/// Finishes an `AsyncStream` when released: whatever the control keeps for a stream holds
/// one, so the stream ends when the control goes.
final class StreamEnd<Element: Sendable>: Sendable {
    let continuation: AsyncStream<Element>.Continuation
    init(_ continuation: AsyncStream<Element>.Continuation) { self.continuation = continuation }
    deinit { continuation.finish() }
}
