import Testing
@testable import StatefulControls

/// A control that records its events and its highlight as they happen.
final class TrackedControl: Control {
    var log: [String] = []
    var acceptsTracking = true
    var continues = true
    var trackingCalls: [String] = []

    init() {
        super.init(frame: Rect(x: 0, y: 0, width: 100, height: 40))
        addAction(
            Action { [unowned self] action in
                log.append("\(action.event!.events)\(isHighlighted ? "*" : "")")
            }, for: .allEvents)
    }

    override func beginTracking(_ touch: Touch, with event: Event?) -> Bool {
        trackingCalls.append("begin"); return acceptsTracking
    }
    override func continueTracking(_ touch: Touch, with event: Event?) -> Bool {
        trackingCalls.append("continue"); return continues
    }
    override func endTracking(_ touch: Touch, with event: Event?) { trackingCalls.append("end") }
    override func cancelTracking(with event: Event?) { trackingCalls.append("cancel") }

    func down(_ x: Double, _ y: Double = 20, taps: Int = 1) {
        touchesBegan(Touch(location: Point(x: x, y: y), tapCount: taps, phase: .began))
    }
    func move(_ x: Double, _ y: Double = 20) { touchesMoved(Touch(location: Point(x: x, y: y), phase: .moved)) }
    func up(_ x: Double, _ y: Double = 20) { touchesEnded(Touch(location: Point(x: x, y: y), phase: .ended)) }
}

@MainActor
@Suite("Tracking: touches to events")
struct TrackingTests {
    @Test func dragOutPastTheSlopAndBackThenUpInside() {
        let control = TrackedControl()
        control.down(50)
        #expect(control.isTracking && control.isTouchInside && control.isHighlighted)
        control.move(60)  // inside
        control.move(150)  // 50 past the edge: still inside the 70-point slop
        control.move(180)  // 80 past: exit
        #expect(!control.isTouchInside && !control.isHighlighted && control.isTracking)
        control.move(200)  // still outside
        control.move(90)  // back in: enter
        #expect(control.isTouchInside && control.isHighlighted)
        control.up(90)
        #expect(!control.isTracking && !control.isHighlighted)
        // "*" marks the control highlighted when the event was sent.
        #expect(
            control.log == [
                "touchDown*", "touchDragInside*", "touchDragInside*", "touchDragExit", "touchDragOutside",
                "touchDragEnter*", "touchUpInside", "primaryActionTriggered",
            ])
        #expect(control.trackingCalls == ["begin", "continue", "continue", "continue", "continue", "continue", "end"])
    }

    @Test func upOutsideSendsTouchUpOutsideAndNoPrimaryAction() {
        let control = TrackedControl()
        control.down(10)
        control.move(-100)
        control.up(-100)
        #expect(control.log == ["touchDown*", "touchDragExit", "touchUpOutside"])
    }

    @Test func theSlopIsConfigurable() {
        let control = TrackedControl()
        control.touchSlop = 0
        control.down(50)
        control.move(101)
        control.up(101)
        #expect(control.log == ["touchDown*", "touchDragExit", "touchUpOutside"])
        #expect(control.trackingArea == control.bounds)
    }

    @Test func cancelSendsTouchCancel() {
        let control = TrackedControl()
        control.down(50)
        control.touchesCancelled(Touch(location: Point(x: 50, y: 20), phase: .cancelled))
        #expect(control.log == ["touchDown*", "touchCancel"])
        #expect(!control.isTracking && !control.isHighlighted)
        #expect(control.trackingCalls == ["begin", "cancel"])
        control.up(50)  // not tracking any more: ignored
        #expect(control.log.count == 2)
    }

    @Test func aDoubleTapSendsTouchDownRepeat() {
        let control = TrackedControl()
        control.down(50)
        control.up(50)
        control.down(50, taps: 2)
        control.up(50)
        #expect(
            control.log == [
                "touchDown*", "touchUpInside", "primaryActionTriggered",
                "touchDown*", "touchDownRepeat*", "touchUpInside", "primaryActionTriggered",
            ])
    }

    @Test func aDisabledControlIgnoresTouches() {
        let control = TrackedControl()
        control.isEnabled = false
        control.down(50)
        control.up(50)
        #expect(control.log.isEmpty && control.trackingCalls.isEmpty && !control.isHighlighted)
    }

    @Test func declinedTrackingStopsAtTouchDown() {
        let control = TrackedControl()
        control.acceptsTracking = false
        control.down(50)
        control.move(60)
        control.up(60)
        #expect(control.log == ["touchDown*"])
        #expect(!control.isTracking && !control.isHighlighted)
    }

    @Test func stoppingInContinueTrackingEndsTracking() {
        let control = TrackedControl()
        control.continues = false
        control.down(50)
        control.move(60)
        control.up(60)
        #expect(control.log == ["touchDown*", "touchDragInside*"])
        #expect(control.trackingCalls == ["begin", "continue", "end"])
        #expect(!control.isHighlighted)
    }

    @Test func highlightDrivesStateBoundValues() {
        let control = TrackedControl()
        let label = Caption()
        control.setValue("pressed", for: \.text, of: label, forAllStatesContained: .highlighted)
        control.down(50)
        #expect(label.text == "pressed")
        control.move(500)
        #expect(label.text == "default")
        control.move(50)
        control.up(50)
        #expect(label.text == "default" && label.writes == 4)
    }
}
