import Testing
@testable import StatefulControls

final class SearchView: View, Stateful {
    var keyword = ""
    var isLocked = false
    var log: [String] = []

    static func awaiting(with keyword: String) -> State<SearchView> {
        state(
            onSet: { view in
                view.keyword = keyword
                view.isLocked = false
                view.log.append("set awaiting \(keyword)")
            },
            onUpdate: { view in
                view.log.append("update awaiting")
            })
    }

    static func locked() -> State<SearchView> {
        state { view in
            view.isLocked = true
            view.log.append("set locked")
        }
    }

    static let fade = Transition<SearchView> { view, mutations, completion in
        view.log.append("fade out")
        mutations()
        view.log.append("fade in")
        completion(true)
    }

    static var defaultTransition: Transition<SearchView> { fade }
}

/// A transition that waits: it runs the mutations at once and completes when told.
@MainActor
final class ManualTransition {
    var completions: [@MainActor (Bool) -> Void] = []
    var transition: Transition<SearchView> {
        Transition { _, mutations, completion in
            mutations()
            self.completions.append(completion)
        }
    }
    func finish() { completions.removeFirst()(true) }
}

@MainActor
@Suite("Declarative states")
struct DeclarativeStateTests {
    @Test func identifiersAreTheDeclaringFunctionsNames() {
        #expect(SearchView.awaiting(with: "a").identifier == "awaiting(with:)")
        #expect(SearchView.locked().identifier == "locked()")
        #expect(State<SearchView>(identifier: "custom", onSet: { _ in }).identifier == "custom")
    }

    @Test func aNewStateRunsOnSetAndTheSameStateRunsOnUpdate() {
        let view = SearchView()
        #expect(view.state.currentIdentifier == nil)
        view.state.apply { $0.awaiting(with: "swift") }.instantly()
        #expect(view.keyword == "swift" && view.state.currentIdentifier == "awaiting(with:)")
        view.state.apply { $0.awaiting(with: "other") }.instantly()  // same state: onUpdate only
        #expect(view.keyword == "swift")
        view.state.apply { $0.locked() }.instantly()
        view.state.apply { $0.locked() }.instantly()  // same state, no onUpdate: nothing
        #expect(view.log == ["set awaiting swift", "update awaiting", "update awaiting", "set locked"])
        #expect(view.state.currentIdentifier == "locked()" && view.isLocked)
    }

    @Test func transitionsWrapTheMutations() {
        let view = SearchView()
        var finished = 0
        view.state.apply { $0.locked() }.viaTransition(SearchView.fade) { result in
            if case .success = result { finished += 1 }
        }
        view.state.apply { $0.awaiting(with: "x") }.viaTransition()  // the default transition
        #expect(view.log == ["fade out", "set locked", "fade in", "fade out", "set awaiting x", "update awaiting", "fade in"])
        #expect(finished == 1)
    }

    @Test func applicationsQueueBehindATransitionInFlight() {
        let view = SearchView()
        let manual = ManualTransition()
        var done: [String] = []
        view.state.apply { $0.locked() }.viaTransition(manual.transition) { _ in done.append("locked") }
        view.state.apply { $0.awaiting(with: "a") }.instantly { _ in done.append("awaiting") }
        view.state.apply { $0.awaiting(with: "b") }.viaTransition(manual.transition) { _ in done.append("update") }
        view.state.apply { $0.locked() }.instantly { _ in done.append("locked again") }
        #expect(view.log == ["set locked"] && done.isEmpty)
        manual.finish()
        // "awaiting" ran instantly, then the second transition started and waits.
        #expect(done == ["locked", "awaiting"])
        #expect(view.log == ["set locked", "set awaiting a", "update awaiting", "update awaiting"])
        manual.finish()
        #expect(done == ["locked", "awaiting", "update", "locked again"])
        #expect(view.state.currentIdentifier == "locked()")
    }

    @Test func aTransitionMustCallItsMutationsExactlyOnce() {
        var violations: [TransitionError] = []
        let saved = StateMachine<SearchView>.violationHandler
        StateMachine<SearchView>.violationHandler = { violations.append($0) }
        defer { StateMachine<SearchView>.violationHandler = saved }
        let view = SearchView()
        let twice = Transition<SearchView> { _, mutations, completion in
            mutations(); mutations(); completion(true)
        }
        var outcome: Result<Void, TransitionError>?
        view.state.apply { $0.locked() }.viaTransition(twice) { outcome = $0 }
        #expect(view.log == ["set locked"])
        #expect(
            violations.map(\.description) == [
                "the transition to state locked() called its mutations more than once; the extra call was ignored"
            ])
        // The completion hears of the violation too, as violationHandler's documentation says.
        guard case .failure(let twiceError) = outcome else { Issue.record("expected a failure"); return }
        #expect(twiceError == violations.first)
        let never = Transition<SearchView> { _, _, completion in completion(true) }
        view.state.apply { $0.awaiting(with: "z") }.viaTransition(never) { outcome = $0 }
        #expect(view.state.currentIdentifier == "locked()" && view.keyword == "")
        #expect(violations.count == 2)
        guard case .failure(let error) = outcome else { Issue.record("expected a failure"); return }
        #expect(error.description.contains("completed without calling its mutations"))
        // The machine is still usable.
        view.state.apply { $0.awaiting(with: "z") }.instantly()
        #expect(view.keyword == "z")
    }
}

/// A control with declarative states: its `state` is the control's, its state machine is
/// `stateMachine`.
final class LockableField: Control, Stateful {
    var log: [String] = []

    static func locked() -> State<LockableField> {
        state { field in
            field.isEnabled = false
            field.log.append("locked")
        }
    }
}

@MainActor
@Suite("Declarative states on a control")
struct DeclarativeStatesOnAControlTests {
    @Test func theStateMachineIsReachableBesideTheControlState() {
        let field = LockableField()
        field.stateMachine.apply { $0.locked() }.instantly()
        let controlState: ControlState = field.state
        #expect(controlState == .disabled && field.log == ["locked"])
        #expect(field.stateMachine.currentIdentifier == "locked()")
    }

    @Test func stateAndStateMachineAreOneMachineWhereStateIsFree() {
        let view = SearchView()
        view.stateMachine.apply { $0.locked() }.instantly()
        #expect(view.state === view.stateMachine && view.state.currentIdentifier == "locked()")
    }
}
