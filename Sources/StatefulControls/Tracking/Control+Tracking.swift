// Touch tracking on a control: begin, continue, end and cancel, turned into events.

extension Control {
    /// Whether the control is tracking a touch.
    public var isTracking: Bool { tracking.isTracking }

    /// Whether the tracked touch is inside the tracking area (the bounds grown by
    /// ``touchSlop`` on every side).
    public var isTouchInside: Bool { tracking.isTouchInside }

    /// The bounds grown by ``touchSlop``: inside/outside and enter/exit are judged against it.
    public var trackingArea: Rect { bounds.insetBy(dx: -touchSlop, dy: -touchSlop) }

    func handleTouchBegan(_ touch: Touch) {
        guard isEnabled, !tracking.isTracking else { return }
        tracking.isTouchInside = true
        isHighlighted = true
        let down = Event(events: .touchDown, touch: touch)
        send(down)
        if touch.tapCount > 1 { send(Event(events: .touchDownRepeat, touch: touch)) }
        tracking.isTracking = beginTracking(touch, with: down)
        if !tracking.isTracking { stopTracking() }
    }

    func handleTouchMoved(_ touch: Touch) {
        guard tracking.isTracking else { return }
        let wasInside = tracking.isTouchInside
        let inside = trackingArea.contains(touch.location)
        tracking.isTouchInside = inside
        isHighlighted = inside
        let events: ControlEvents =
            switch (wasInside, inside) {
            case (true, true): .touchDragInside
            case (false, false): .touchDragOutside
            case (false, true): .touchDragEnter
            case (true, false): .touchDragExit
            }
        let drag = Event(events: events, touch: touch)
        send(drag)
        if !continueTracking(touch, with: drag) {
            stopTracking()
            endTracking(touch, with: nil)
        }
    }

    func handleTouchEnded(_ touch: Touch) {
        guard tracking.isTracking else { return }
        let inside = trackingArea.contains(touch.location)
        tracking.isTouchInside = inside
        stopTracking()
        let up = Event(events: inside ? .touchUpInside : .touchUpOutside, touch: touch)
        endTracking(touch, with: up)
        send(up)
        if inside { send(Event(events: .primaryActionTriggered, touch: touch)) }
    }

    func handleTouchCancelled(_ touch: Touch) {
        guard tracking.isTracking else { return }
        stopTracking()
        let cancel = Event(events: .touchCancel, touch: touch)
        cancelTracking(with: cancel)
        send(cancel)
    }

    private func stopTracking() {
        tracking.isTracking = false
        isHighlighted = false
    }
}
