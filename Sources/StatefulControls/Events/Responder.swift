/// An object in a responder chain: actions sent to no particular target travel from the
/// sending control up the chain of ``next`` responders to the first one that handles them.
@MainActor
open class Responder {
    /// Creates a responder.
    public init() {}

    /// The next responder in the chain, or nil at its end. For a ``View``, its superview.
    open var next: Responder? { nil }

    /// Whether this responder performs the action named `name` when it reaches it through the
    /// responder chain. Called only on responders of the action's target type; returns true
    /// unless overridden.
    open func canPerformAction(_ name: String, withSender sender: AnyObject?) -> Bool { true }
}
