import Testing
@testable import StatefulControls

/// A control's transitions: they nest, and the events sent meanwhile come back, in order, when
/// the outermost one closes.
@Suite("Control parts: TransitionState")
struct TransitionStateTests {
    @Test func eventsComeBackInOrderWhenTheOutermostTransitionCloses() {
        var transitions = TransitionState()
        #expect(!transitions.isOpen)
        transitions.open()
        transitions.open()
        transitions.queue(Event(events: .touchDown))
        transitions.queue(Event(events: .valueChanged))
        let inner = transitions.close()
        #expect(inner == nil && transitions.isOpen && transitions.queuedEvents.count == 2)
        transitions.queue(Event(events: .touchUpInside))
        let outer = transitions.close()
        #expect(outer?.map(\.events) == [.touchDown, .valueChanged, .touchUpInside])
        #expect(!transitions.isOpen && transitions.queuedEvents.isEmpty)
    }

    @Test func aTransitionWithoutEventsClosesWithNone() {
        var transitions = TransitionState()
        transitions.open()
        let events = transitions.close()
        #expect(events?.isEmpty == true && transitions.depth == 0)
    }
}
