/// A touch on a control, in the control's coordinates.
public struct Touch: Hashable, Sendable {
    /// Where a touch is in its life.
    public enum Phase: Hashable, Sendable {
        case began, moved, ended, cancelled
    }

    /// The location in the control's coordinates.
    public var location: Point
    /// The number of taps in quick succession (2 for the second tap of a double tap).
    public var tapCount: Int
    /// The phase.
    public var phase: Phase
    /// When the touch happened, in seconds.
    public var timestamp: Double

    /// Creates a touch.
    public init(location: Point, tapCount: Int = 1, phase: Phase, timestamp: Double = 0) {
        self.location = location
        self.tapCount = tapCount
        self.phase = phase
        self.timestamp = timestamp
    }
}
