import Testing
@testable import StatefulControls

/// A control's events and applied states as `AsyncSequence`s.
@MainActor
@Suite("Async sequences: events and applied states")
struct AsyncSequenceTests {
    final class Recorder {
        var events: [ControlEvents] = []
        func record(_ sender: Control, _ event: Event) { events.append(event.events) }
    }

    @Test func eventsArriveInTheOrderTheyAreSent() async {
        let control = Control()
        let recorder = Recorder()
        control.addTarget(recorder, action: Selector("record", Recorder.record), for: [.valueChanged, .primaryActionTriggered])
        let stream = control.events(for: [.valueChanged, .primaryActionTriggered])
        let sent: [ControlEvents] = [.valueChanged, .primaryActionTriggered, .touchUpInside, .valueChanged]
        for events in sent { control.sendActions(for: events) }
        var received: [ControlEvents] = []
        for await event in stream.prefix(3) { received.append(event.events) }
        #expect(received == [.valueChanged, .primaryActionTriggered, .valueChanged])
        #expect(received == recorder.events)
    }

    @Test func theSequenceEndsWhenTheControlIsDeallocated() async {
        var control: Control? = Control()
        let stream = control!.events(for: .valueChanged)
        let states = control!.appliedStates()
        control!.sendActions(for: .valueChanged)
        control!.isSelected = true
        weak let weakControl = control
        control = nil
        #expect(weakControl == nil)  // the sequences do not keep it alive
        var events = 0, received: [ControlState] = []
        for await _ in stream { events += 1 }  // the buffered event, then the end
        for await state in states { received.append(state) }
        #expect(events == 1 && received == [.selected])
    }

    @Test func cancellingTheIteratingTaskRemovesTheRegistration() async {
        let control = Control()
        let stream = control.events(for: .valueChanged)
        #expect(control.registrations.count == 1)
        control.sendActions(for: .valueChanged)
        let task = Task.detached {
            var count = 0
            for await _ in stream { count += 1 }
            return count
        }
        task.cancel()
        #expect(await task.value <= 1)
        // The termination handler removes the action on the main actor: give it a few turns.
        for _ in 0..<100 where !control.registrations.isEmpty {
            try? await Task.sleep(for: .milliseconds(1))
        }
        #expect(control.registrations.isEmpty)
    }

    @Test func appliedStatesYieldEachChangeOnly() async {
        let control = Control()
        let states = control.appliedStates()
        control.isSelected = true
        control.isSelected = true  // no change
        control.isHighlighted = true
        control.performTransition {
            control.isEnabled = false; control.isEnabled = true
        }  // applied once, unchanged
        control.isSelected = false
        var received: [ControlState] = []
        for await state in states.prefix(3) { received.append(state) }
        #expect(received == [.selected, [.selected, .highlighted], .highlighted])
    }

    @Test func aStalledConsumerKeepsOnlyTheNewestStates() async {
        let control = Control()
        let states = control.appliedStates(bufferingNewest: 2)
        for round in 0..<100 { control.isSelected = round % 2 == 0 }
        var received: [ControlState] = []
        for await state in states.prefix(2) { received.append(state) }
        #expect(received == [.selected, .normal])
    }
}
