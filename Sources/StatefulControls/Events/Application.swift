/// The application-level dispatcher every control delivers its actions through, as
/// `UIApplication.sendAction(_:to:from:for:)`. It resolves nil targets along the responder
/// chain and lets observers see every delivery.
@MainActor
public final class Application {
    /// The shared dispatcher.
    public static let shared = Application()

    private let observers = WeakTokens<DeliveryObserver>()

    private init() {}

    /// Delivers `action` from `sender`.
    ///
    /// With a nil `target` the action goes to the first responder, starting at `sender` and
    /// following ``Responder/next``, that is of the action's target type and answers true to
    /// ``Responder/canPerformAction(_:withSender:)``. When there is none, the action is
    /// dropped and reported to the observers as not delivered.
    ///
    /// - Returns: Whether a receiver performed the action.
    @discardableResult
    public func sendAction(_ action: ControlAction, to target: AnyObject?, from sender: Control, for event: Event) -> Bool {
        let receiver = target ?? firstResponder(for: action, from: sender)
        let delivered = receiver.map { action.perform(on: $0, sender: sender, event: event) } ?? false
        let delivery = ActionDelivery(action: action, receiver: receiver, sender: sender, event: event, isDelivered: delivered)
        observers.forEach { $0.handler(delivery) }
        return delivered
    }

    /// Calls `handler` for every delivery from now on, delivered or dropped.
    /// - Returns: A token; the observation ends when it is cancelled or released.
    public func observeDeliveries(_ handler: @escaping @MainActor (ActionDelivery) -> Void) -> DeliveryObserver {
        let observer = DeliveryObserver(handler)
        observers.append(observer)
        return observer
    }

    private func firstResponder(for action: ControlAction, from sender: Control) -> Responder? {
        var responder: Responder? = sender
        while let candidate = responder {
            if action.canBePerformed(by: candidate), candidate.canPerformAction(action.name, withSender: sender) {
                return candidate
            }
            responder = candidate.next
        }
        return nil
    }
}

/// One delivery seen by an ``Application`` observer.
public struct ActionDelivery {
    /// The action.
    public let action: ControlAction
    /// Who received it: the target, or the responder found for a nil target; nil if none.
    public let receiver: AnyObject?
    /// The control that sent it.
    public let sender: Control
    /// The event.
    public let event: Event
    /// Whether the receiver performed it (false when it was dropped).
    public let isDelivered: Bool
}

/// An observation of deliveries, returned by ``Application/observeDeliveries(_:)``; it lasts
/// until ``ObservationToken/cancel()`` is called or the token is released.
@MainActor
public final class DeliveryObserver: ObservationToken {
    let handler: @MainActor (ActionDelivery) -> Void
    init(_ handler: @escaping @MainActor (ActionDelivery) -> Void) { self.handler = handler }
}
