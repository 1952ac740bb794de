// Subscriptions to a control's state, and how a control notifies them (over its
// SubscriptionState part).

/// A subscription to a control's state, returned by ``Control/subscribe(to:_:)``.
///
/// The subscription lasts until ``ObservationToken/cancel()`` is called or the token is
/// released.
@MainActor
public final class StateSubscription: ObservationToken {
    /// What the subscription waits for: the descriptor to start matching, or (nil) any change
    /// of the applied state.
    let descriptor: StateDescriptor?
    let handler: @MainActor (ControlState) -> Void
    var wasMatching: Bool
    /// The applied state last seen (for a subscription to every change).
    var lastState: ControlState

    init(_ descriptor: StateDescriptor?, appliedState: ControlState, handler: @escaping @MainActor (ControlState) -> Void) {
        self.descriptor = descriptor
        self.wasMatching = descriptor?.matches(appliedState) ?? false
        self.lastState = appliedState
        self.handler = handler
    }

    /// Whether the handler is due for `applied`, recording it as seen.
    func isDue(for applied: ControlState) -> Bool {
        guard let descriptor else {
            defer { lastState = applied }
            return applied != lastState
        }
        let matching = descriptor.matches(applied)
        defer { wasMatching = matching }
        return matching && !wasMatching
    }
}

extension Control {
    /// Calls `handler` with the applied state each time it starts to match `descriptor`
    /// (edge-triggered: not while it keeps matching, not for the state at subscription time).
    ///
    /// - Returns: A token; the subscription ends when it is cancelled or released.
    public func subscribe(
        to descriptor: StateDescriptor,
        _ handler: @escaping @MainActor (ControlState) -> Void
    ) -> StateSubscription {
        let subscription = StateSubscription(descriptor, appliedState: appliedState, handler: handler)
        WeakTokens.append(subscription, to: &subscriptions.tokens)
        return subscription
    }

    /// Calls the subscriptions whose descriptor started to match. A handler that changes the
    /// state does not nest a notification: the running one goes on with the new applied state
    /// (each subscription sees the state applied when it is called), then runs again until
    /// the state settles.
    func notifySubscriptions() {
        // The tokens, held here: handlers may change the control's other subscription state.
        guard !subscriptions.isNotifying, let tokens = subscriptions.tokens, !tokens.isEmpty else { return }
        subscriptions.isNotifying = true
        defer { subscriptions.isNotifying = false }
        var notified = ControlState?.none
        var rounds = 0
        while notified != appliedState {
            rounds += 1
            guard rounds <= StateResolver.maximumRounds else {
                return Control.diagnosticHandler(
                    ControlDiagnostic(
                        "\(type(of: self)): subscription handlers keep changing the state; notifications stopped at [\(appliedState)]"))
            }
            notified = appliedState
            tokens.forEach { subscription in
                let applied = appliedState
                if subscription.isDue(for: applied) { subscription.handler(applied) }
            }
        }
    }
}
