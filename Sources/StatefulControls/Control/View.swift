/// A minimal view: a frame, a hierarchy and visibility. Enough for controls to have bounds
/// to track touches in and a responder chain (a view's next responder is its superview).
@MainActor
open class View: Responder {
    /// The view's rectangle in its superview's coordinates.
    open var frame: Rect

    /// Whether the view is hidden.
    open var isHidden = false

    /// The view's rectangle in its own coordinates.
    public var bounds: Rect { Rect(origin: .zero, size: frame.size) }

    /// The view containing this one.
    public private(set) weak var superview: View?

    /// The views this one contains, back to front.
    public private(set) var subviews: [View] = []

    /// Creates a view with a frame.
    public init(frame: Rect = .zero) {
        self.frame = frame
        super.init()
    }

    /// The superview.
    open override var next: Responder? { superview }

    /// Adds `view` on top of the subviews, taking it from its previous superview.
    public func addSubview(_ view: View) {
        view.removeFromSuperview()
        subviews.append(view)
        view.superview = self
    }

    /// Removes the view from its superview.
    public func removeFromSuperview() {
        guard let superview else { return }
        superview.subviews.removeAll { $0 === self }
        self.superview = nil
    }
}
