// Notification proxies: observers that unregister when their owner goes.

import Foundation

/// A `NotificationCenter` block observer whose lifetime is its owner's.
///
/// The proxy is attached to its owner (a ``View`` or any control): when the owner is
/// deallocated the proxy goes with it and removes its observer, so the block never runs again.
/// The block receives the owner as a parameter and the proxy holds it weakly, so no retain
/// cycle can be written by mistake.
///
/// ```swift
/// NotificationProxy.observe(.textViewTextDidChange, object: textView, owner: textView) { textView, _ in
///     textView.placeholderLabel.isHidden = !textView.text.isEmpty
/// }
/// ```
///
/// Notifications posted on the main actor (the main queue) run the block at once; those posted
/// elsewhere run it on the main actor later, if the owner is still alive and the proxy not
/// cancelled by then.
@MainActor
public final class NotificationProxy: ObservationToken {
    /// The notification observed.
    public let name: Notification.Name

    private init(name: Notification.Name) {
        self.name = name
    }

    /// Observes `name` (from `object`, or any sender when nil) on `center` for as long as
    /// `owner` lives, calling `block` with the owner and the notification.
    ///
    /// - Returns: The proxy, already attached to `owner`; keep it only to
    ///   ``ObservationToken/cancel()`` early, which removes the observer and detaches the proxy.
    @discardableResult
    public static func observe<Owner: View>(
        _ name: Notification.Name, object: AnyObject? = nil, center: NotificationCenter = .default,
        owner: Owner, using block: @escaping @MainActor (Owner, Notification) -> Void
    ) -> NotificationProxy {
        let proxy = NotificationProxy(name: name)
        let observer = center.addObserver(forName: name, object: object, queue: nil) { [weak proxy, weak owner] notification in
            nonisolated(unsafe) let notification = notification
            let deliver: @MainActor () -> Void = {
                guard let proxy, !proxy.isCancelled, let owner else { return }
                block(owner, notification)
            }
            if MainQueue.isCurrent {
                MainActor.assumeIsolated(deliver)
            } else {
                DispatchQueue.main.async(execute: deliver)
            }
        }
        proxy.onCancel { [weak proxy, weak owner] in
            center.removeObserver(observer)
            if let proxy { owner?.detach(proxy) }
        }
        owner.attach(proxy)
        return proxy
    }
}

/// Tells whether the caller runs on the main queue, the main actor's executor. (On Linux the
/// main actor need not run on the main thread, so `Thread.isMainThread` cannot tell.)
enum MainQueue {
    private static let key: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    static var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == true }
}
