import Testing
@testable import StatefulControls

/// A target with a few action methods; records what it receives.
final class Receiver {
    var log: [String] = []
    let name: String
    init(_ name: String = "receiver") { self.name = name }
    func tapped() { log.append("tapped") }
    func changed(_ sender: Control) { log.append("changed by \(type(of: sender))") }
    func event(_ sender: Control, _ event: Event) { log.append("\(event.events)") }
}

extension Selector where Target == Receiver {
    static let tapped = Selector("tapped", Receiver.tapped)
    static let changed = Selector("changed", Receiver.changed)
    static let event = Selector("event", Receiver.event)
}

/// A view in the responder chain that handles `Receiver`-style actions itself.
final class Screen: View {
    var handled: [String] = []
    var declines: Set<String> = []
    override func canPerformAction(_ name: String, withSender sender: AnyObject?) -> Bool { !declines.contains(name) }
    func submit() { handled.append("submit") }
}

extension Selector where Target == Screen {
    static let submit = Selector("submit", Screen.submit)
}

@MainActor
@Suite("Events: target–action, closure actions, the responder chain")
struct EventTests {
    @Test func controlEventsHaveUIKitValues() {
        #expect(ControlEvents.touchDown.rawValue == 1 << 0)
        #expect(ControlEvents.touchCancel.rawValue == 1 << 8)
        #expect(ControlEvents.valueChanged.rawValue == 1 << 12)
        #expect(ControlEvents.primaryActionTriggered.rawValue == 1 << 13)
        #expect(ControlEvents.menuActionTriggered.rawValue == 1 << 14)
        #expect(ControlEvents.editingDidBegin.rawValue == 1 << 16)
        #expect(ControlEvents.editingDidEndOnExit.rawValue == 1 << 19)
        #expect(ControlEvents.allTouchEvents.rawValue == 0x0FFF)
        #expect(ControlEvents.allEditingEvents.rawValue == 0x000F_0000)
        #expect(ControlEvents.applicationReserved.rawValue == 0x0F00_0000)
        #expect(ControlEvents.systemReserved.rawValue == 0xF000_0000)
        #expect(ControlEvents.allEvents.rawValue == 0xFFFF_FFFF)
        #expect(ControlEvents([.touchDown, .valueChanged]).description == "touchDown | valueChanged")
    }

    @Test func customEventsLieInTheApplicationRange() {
        #expect(ControlEvents.application(1 << 24).rawValue == 1 << 24)
        #expect(ControlEvents.application(0x0F00_0000) == .applicationReserved)
        #expect(ControlEvents.systemReserved.contains(.typeComplete))
        #expect(ControlEvents.typeComplete.description == "typeComplete")
    }

    @Test func theSameTargetAndActionIsDeliveredOnceWithMergedEvents() {
        let control = Control()
        let receiver = Receiver()
        control.addTarget(receiver, action: .tapped, for: .touchUpInside)
        control.addTarget(receiver, action: .tapped, for: [.touchUpInside, .primaryActionTriggered])
        control.sendActions(for: [.touchUpInside, .primaryActionTriggered])
        #expect(receiver.log == ["tapped"])
        #expect(control.allControlEvents == [.touchUpInside, .primaryActionTriggered])
        #expect(control.actions(forTarget: receiver, forControlEvent: .primaryActionTriggered) == ["tapped"])
        #expect(control.actions(forTarget: receiver, forControlEvent: .valueChanged) == nil)
    }

    @Test func deliveryIsInRegistrationOrder() {
        let control = Control()
        let receiver = Receiver()
        control.addTarget(receiver, action: .event, for: .valueChanged)
        control.addTarget(receiver, action: .changed, for: .valueChanged)
        control.addTarget(receiver, action: .tapped, for: .allEvents)
        control.sendActions(for: .valueChanged)
        #expect(receiver.log == ["valueChanged", "changed by Control", "tapped"])
        #expect(control.allTargets.count == 1)
    }

    @Test func removeTargetTreatsNilAsAWildcard() {
        let control = Control()
        let a = Receiver("a"), b = Receiver("b")
        control.addTarget(a, action: .tapped, for: [.touchUpInside, .valueChanged])
        control.addTarget(a, action: .changed, for: .valueChanged)
        control.addTarget(b, action: .tapped, for: .valueChanged)
        control.removeTarget(a, action: .tapped, for: .valueChanged)  // one event of one pair
        #expect(control.actions(forTarget: a, forControlEvent: .allEvents) == ["tapped", "changed"])
        #expect(control.actions(forTarget: a, forControlEvent: .valueChanged) == ["changed"])
        control.removeTarget(nil, action: "tapped")  // every target
        #expect(control.actions(forTarget: b, forControlEvent: .allEvents) == nil)
        #expect(control.actions(forTarget: a, forControlEvent: .allEvents) == ["changed"])
        control.addTarget(b, action: .tapped, for: .valueChanged)
        control.removeTarget(a, action: nil)  // every action of a
        #expect(control.allTargets.map { ($0 as! Receiver).name } == ["b"])
        control.removeTarget(nil, action: nil)  // everything
        #expect(control.allTargets.isEmpty && control.allControlEvents.isEmpty)
    }

    @Test func targetsAreHeldWeaklyAndDeadOnesArePruned() {
        let control = Control()
        weak var weakReceiver: Receiver?
        do {
            let receiver = Receiver()
            weakReceiver = receiver
            control.addTarget(receiver, action: .tapped, for: .valueChanged)
            #expect(control.allTargets.count == 1)
        }
        #expect(weakReceiver == nil)
        #expect(control.allTargets.isEmpty)
        #expect(control.allControlEvents.isEmpty)
        control.sendActions(for: .valueChanged)  // nothing to deliver, nothing crashes
        #expect(control.registrations.isEmpty)
    }

    @Test func closureActionsAreIdentifiedAndReplaced() {
        let control = Control()
        var log: [String] = []
        control.addAction(Action(identifier: "log") { _ in log.append("first") }, for: .valueChanged)
        control.addAction(Action(identifier: "log") { action in log.append("second from \(type(of: action.sender!))") }, for: .touchDown)
        control.sendActions(for: .valueChanged)
        control.sendActions(for: .touchDown)
        #expect(log == ["second from Control", "second from Control"])
        control.removeAction(identifiedBy: "log", for: .valueChanged)
        control.sendActions(for: .valueChanged)
        #expect(log.count == 2)
        let other = Action { _ in log.append("other") }
        control.addAction(other, for: .valueChanged)
        control.sendActions(for: .valueChanged)
        control.removeAction(other)
        control.sendActions(for: [.valueChanged, .touchDown])
        #expect(log == ["second from Control", "second from Control", "other", "second from Control"])
        #expect(control.allTargets.isEmpty)  // closure actions are not targets
    }

    @Test func aNilTargetTravelsUpTheResponderChain() {
        let screen = Screen()
        let container = View()
        let button = Button()
        screen.addSubview(container)
        container.addSubview(button)
        button.addTarget(nil, action: Selector<Screen>.submit, for: .primaryActionTriggered)
        #expect(button.actions(forTarget: nil, forControlEvent: .primaryActionTriggered) == ["submit"])
        button.sendActions(for: .primaryActionTriggered)
        #expect(screen.handled == ["submit"])
    }

    @Test func aResponderCanDeclineAndAnUnhandledActionIsReportedNotCrashed() {
        let outer = Screen(), inner = Screen()
        let button = Button()
        outer.addSubview(inner)
        inner.addSubview(button)
        inner.declines = ["submit"]
        var deliveries: [ActionDelivery] = []
        let observer = Application.shared.observeDeliveries { deliveries.append($0) }
        defer { observer.cancel() }
        button.addTarget(nil, action: Selector<Screen>.submit, for: .valueChanged)
        button.sendActions(for: .valueChanged)
        #expect(inner.handled.isEmpty && outer.handled == ["submit"])
        #expect(deliveries.last?.receiver === outer && deliveries.last?.isDelivered == true)
        outer.declines = ["submit"]
        button.sendActions(for: .valueChanged)
        #expect(outer.handled == ["submit"])
        #expect(deliveries.last?.receiver == nil && deliveries.last?.isDelivered == false)
        #expect(deliveries.last?.action.name == "submit" && deliveries.last?.sender === button)
    }

    @Test func sendActionCanRedirectOrSuppressADelivery() {
        final class Redirecting: Control {
            var redirect: Receiver?
            var suppressed: Set<String> = []
            var seen: [String] = []
            override func sendAction(_ action: ControlAction, to target: AnyObject?, for event: Event) {
                seen.append(action.name)
                guard !suppressed.contains(action.name) else { return }
                super.sendAction(action, to: redirect ?? target, for: event)
            }
        }
        let control = Redirecting()
        let original = Receiver("original"), other = Receiver("other")
        control.addTarget(original, action: .tapped, for: .valueChanged)
        control.addTarget(original, action: .changed, for: .valueChanged)
        control.suppressed = ["changed"]
        control.sendActions(for: .valueChanged)
        #expect(original.log == ["tapped"])
        control.redirect = other
        control.sendActions(for: .valueChanged)
        #expect(original.log == ["tapped"] && other.log == ["tapped"])
        #expect(control.seen == ["tapped", "changed", "tapped", "changed"])
    }

    @Test func handlersThatMutateTheControlDuringDispatchSeeASnapshot() {
        let control = Control()
        let late = Receiver("late"), removed = Receiver("removed")
        var log: [String] = []
        control.addAction(
            Action(identifier: "mutator") { action in
                log.append("mutator")
                let sender = action.sender!
                sender.addTarget(late, action: .tapped, for: .valueChanged)
                sender.removeTarget(removed, action: nil)
                sender.sendActions(for: .touchDown)  // nested: delivered at once
            }, for: .valueChanged)
        control.addAction(Action { _ in log.append("nested touchDown") }, for: .touchDown)
        control.addTarget(removed, action: .tapped, for: .valueChanged)
        control.sendActions(for: .valueChanged)
        #expect(log == ["mutator", "nested touchDown"])
        #expect(late.log.isEmpty)  // added during the dispatch: not in its snapshot
        #expect(removed.log == ["tapped"])  // removed during the dispatch: still in its snapshot
        control.removeAction(identifiedBy: "mutator")
        control.sendActions(for: .valueChanged)
        #expect(late.log == ["tapped"] && removed.log == ["tapped"])
    }

    @Test func aTargetDeallocatedDuringDispatchIsSkipped() {
        let control = Control()
        var victim: Receiver? = Receiver()
        control.addAction(Action { _ in victim = nil }, for: .valueChanged)
        control.addTarget(victim!, action: .tapped, for: .valueChanged)
        control.sendActions(for: .valueChanged)
        #expect(victim == nil)
        #expect(control.registrations.count == 1)
    }

    @Test func disabledControlsStillSendActionsProgrammatically() {
        let control = Control()
        let receiver = Receiver()
        control.isEnabled = false
        control.addTarget(receiver, action: .tapped, for: .primaryActionTriggered)
        control.sendActions(for: .primaryActionTriggered)
        #expect(receiver.log == ["tapped"])
    }

    @Test func eventsSentInATransitionAreQueuedInOrder() {
        let control = Control()
        let receiver = Receiver()
        control.addTarget(receiver, action: .event, for: .allEvents)
        control.performTransition {
            control.sendActions(for: .valueChanged)
            control.sendActions(for: .touchDown)
            #expect(receiver.log.isEmpty)
        }
        #expect(receiver.log == ["valueChanged", "touchDown"])
    }
}
