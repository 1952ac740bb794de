/// One sending of control events: which events, and the touch that caused them if any.
public struct Event: Sendable {
    /// The events sent.
    public let events: ControlEvents
    /// The touch that caused them; nil for events sent programmatically.
    public let touch: Touch?

    /// Creates an event.
    public init(events: ControlEvents, touch: Touch? = nil) {
        self.events = events
        self.touch = touch
    }
}
