/// A minimal view: a frame, a hierarchy and visibility. Enough for controls to have bounds
/// to track touches in and a responder chain (a view's next responder is its superview).
@MainActor
open class View: Responder {
    /// The view's rectangle in its superview's coordinates.
    open var frame: Rect

    /// The view's rectangle in its own coordinates.
    public var bounds: Rect { Rect(origin: .zero, size: frame.size) }

    /// The view containing this one. Not retained (the superview holds its subviews) and not a
    /// weak reference either, which would give the superview a side table and slow every retain
    /// and release of it: a view clears its subviews' `superview` when it goes, as UIKit's do.
    ///
    /// A view's `deinit` runs on the main actor: when its last reference goes on another
    /// thread, the `deinit` waits for the main actor, and until it runs its subviews still
    /// return it here (a weak reference would return nil). A reference taken then must not
    /// outlive the main actor's next turn: the runtime stops the program when the view is
    /// freed with references left.
    public var superview: View? { parent }
    private unowned(unsafe) var parent: View?

    /// The views this one contains, back to front.
    public private(set) var subviews: [View] = []

    /// Objects that live exactly as long as the view (see ``attach(_:)``).
    public private(set) var attachments: [AnyObject] = []

    /// The view's lifetime, made when a resolver with the portable property access first binds
    /// one of its properties (see ``lifetime``); read and made under ``lifetimeLock``.
    nonisolated(unsafe) private var lifetimeIfMade: TargetLifetime?

    /// Whether the view is hidden. Final, so that a state change writes it in place (see
    /// ``StateResolver``). (Declared last: a subclass's small fields take the padding after it.)
    public final var isHidden = false

    /// Creates a view with a frame.
    public init(frame: Rect = .zero) {
        self.frame = frame
        super.init()
    }

    /// Ends the view's lifetime for the resolvers that bind it, and clears its subviews'
    /// `superview`. Isolated: it runs on the main actor, as everything else that reads them
    /// does, even when the last reference goes elsewhere.
    isolated deinit {
        lifetimeLock.withLock { _ in lifetimeIfMade }?.end()
        for view in subviews { view.parent = nil }
    }

    /// The superview.
    open override var next: Responder? { superview }

    /// Adds `view` on top of the subviews, taking it from its previous superview.
    public func addSubview(_ view: View) {
        view.removeFromSuperview()
        subviews.append(view)
        view.parent = self
    }

    /// Keeps `object` alive for as long as the view lives (or until ``detach(_:)``): the bag
    /// that gives helpers such as ``NotificationProxy`` the view's lifetime.
    public func attach(_ object: AnyObject) {
        guard !attachments.contains(where: { $0 === object }) else { return }
        attachments.append(object)
    }

    /// Lets go of an attached object.
    public func detach(_ object: AnyObject) {
        attachments.removeAll { $0 === object }
    }

    /// Removes the view from its superview.
    public func removeFromSuperview() {
        guard let superview else { return }
        superview.subviews.removeAll { $0 === self }
        parent = nil
    }
}

extension View: ReportsLifetime {
    /// The view's lifetime, which its `deinit` ends: a resolver with the portable property
    /// access holds a bound view by it, instead of by a weak reference (see `ReportsLifetime`).
    /// Made once, under a lock: a view is `Sendable`, and any thread may bind it.
    package nonisolated var lifetime: TargetLifetime {
        lifetimeLock.withLock { _ in
            if let lifetimeIfMade { return lifetimeIfMade }
            let made = TargetLifetime()
            lifetimeIfMade = made
            return made
        }
    }
}

/// Guards every view's ``View/lifetime`` while it is read or made: once per view and resolver
/// that binds it, and once in its `deinit`.
private let lifetimeLock = Locked(())
