// A control's part that holds the tracking of its current touch.

/// A control's tracking of its current touch.
struct TrackingState {
    var isTracking = false
    var isTouchInside = false
}
