// A control's part that holds its state subscriptions and whether it is notifying them.

/// A control's subscriptions to its state (see ``Control/subscribe(to:_:)``): the tokens,
/// held weakly, the subscriptions of its async sequences, which the control keeps while it
/// lives, and whether a notification runs (a handler's state change does not nest one).
@MainActor
struct SubscriptionState {
    /// The subscriptions, made with the first one (a control nobody subscribes to allocates
    /// nothing for them).
    var tokens: WeakTokens<StateSubscription>?
    /// The subscriptions of ``Control/appliedStates(bufferingNewest:)``.
    var streams: [StateSubscription] = []
    var isNotifying = false

    /// Whether no subscription is held.
    var isEmpty: Bool { tokens?.isEmpty ?? true }
}
