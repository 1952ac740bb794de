/// A subscription to a control's state, returned by ``Control/subscribe(to:_:)``.
///
/// The subscription lasts until ``cancel()`` is called or the token is released.
@MainActor
public final class StateSubscription {
    let descriptor: StateDescriptor
    var handler: (@MainActor (ControlState) -> Void)?
    var wasMatching: Bool

    init(_ descriptor: StateDescriptor, matching: Bool, handler: @escaping @MainActor (ControlState) -> Void) {
        self.descriptor = descriptor
        self.wasMatching = matching
        self.handler = handler
    }

    /// Whether the subscription was cancelled.
    public var isCancelled: Bool { handler == nil }

    /// Stops the subscription; its handler is never called again.
    public func cancel() { handler = nil }
}

struct WeakSubscription {
    weak var subscription: StateSubscription?
}

extension Control {
    /// Calls `handler` with the applied state each time it starts to match `descriptor`
    /// (edge-triggered: not while it keeps matching, not for the state at subscription time).
    ///
    /// - Returns: A token; the subscription ends when it is cancelled or released.
    public func subscribe(to descriptor: StateDescriptor,
                          _ handler: @escaping @MainActor (ControlState) -> Void) -> StateSubscription {
        let subscription = StateSubscription(descriptor, matching: descriptor.matches(appliedState), handler: handler)
        subscriptions.append(WeakSubscription(subscription: subscription))
        return subscription
    }

    func notifySubscriptions() {
        subscriptions.removeAll { $0.subscription?.handler == nil }
        let applied = appliedState
        for entry in subscriptions {
            guard let subscription = entry.subscription, let handler = subscription.handler else { continue }
            let matching = subscription.descriptor.matches(applied)
            let started = matching && !subscription.wasMatching
            subscription.wasMatching = matching
            if started { handler(applied) }
        }
    }
}
