import Testing
import StatefulControls

/// Handlers and declarative closures that call back into the control.
@MainActor
@Suite("Controls: user code that calls back")
struct ControlReentrancyTests {
    @Test func aSubscriptionHandlerThatChangesTheStateIsSeenByLaterSubscribers() {
        let control = Control()
        var seen: [ControlState] = []
        let highlighter = control.subscribe(to: .containing(.selected)) { _ in control.isHighlighted = true }
        let recorder = control.subscribe(to: .containing(.selected)) { seen.append($0) }
        let highlighted = control.subscribe(to: .containing(.highlighted)) { seen.append($0) }
        control.isSelected = true
        #expect(control.appliedState == [.selected, .highlighted])
        // Each later subscriber sees the state applied when it is called: the new one.
        #expect(seen == [[.selected, .highlighted], [.selected, .highlighted]])
        withExtendedLifetime((highlighter, recorder, highlighted)) {}
    }

    @Test func aPredicateThatRegistersAStateLeavesTheDerivationSound() throws {
        let first = try ControlState.allocate(named: "com.example.tests.reentrant.first")
        let second = try ControlState.allocate(named: "com.example.tests.reentrant.second")
        let control = Control()
        var registered = false
        control.register(first, named: "registers another") { control in
            if control.isSelected && !registered {
                registered = true
                control.register(second, named: "the other") { $0.isSelected }
            }
            return control.isSelected
        }
        control.isSelected = true
        #expect(registered && control.state == [.selected, first, second])
        #expect(control.appliedState == control.state)
    }

    @Test func subscribingFromAHandlerWaitsForTheNextChange() {
        let control = Control()
        var late: StateSubscription?
        var lateCalls = 0
        let first = control.subscribe(to: .containing(.selected)) { _ in
            late = control.subscribe(to: .containing(.focused)) { _ in lateCalls += 1 }
        }
        control.isSelected = true
        #expect(late != nil && lateCalls == 0)
        control.isFocused = true
        #expect(lateCalls == 1)
        withExtendedLifetime(first) {}
    }
}

@MainActor
final class Door: Stateful {
    var log: [String] = []
    static func opening() -> State<Door> {
        state { door in
            door.log.append("opening")
            door.state.apply { $0.open() }.instantly()
        }
    }
    static func open() -> State<Door> { state { $0.log.append("open") } }
}

@MainActor
@Suite("Declarative states: onSet that applies another state")
struct DeclarativeReentrancyTests {
    @Test func theStateAppliedFromOnSetIsCurrent() {
        let door = Door()
        door.state.apply { $0.opening() }.instantly()
        #expect(door.log == ["opening", "open"])
        #expect(door.state.currentIdentifier == "open()")
        door.state.apply { $0.opening() }.instantly()  // not current: runs again
        #expect(door.log == ["opening", "open", "opening", "open"])
    }
}
