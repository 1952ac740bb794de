import Testing
@testable import StatefulControls

/// What a control tells an inspector: its registered custom states, the properties bound
/// through it, explained untyped, and its transitions as they happen.
@MainActor
@Suite("Control: inspection (custom states, bound properties, transitions)")
struct ControlInspectionTests {
    @Test func registeredCustomStatesAreListedInRegistrationOrder() {
        #expect(Control().registeredCustomStates.isEmpty)
        #expect(Switch().registeredCustomStates == [.switchOn, .switchLoud])
        // The library's components: their states of the reserved range.
        #expect(PinCodeControl().registeredCustomStates == [.filled, .valid, .invalid])
        #expect(VisitableButton().registeredCustomStates == [.visited])
        // With the four built-in factors, the bits the reachable states are made of.
        let toggle = Switch()
        let bits = toggle.reachableStates.reduce(ControlState()) { $0.union($1) }
        #expect(bits == toggle.registeredCustomStates.reduce([.highlighted, .disabled, .selected, .focused]) { $0.union($1) })
    }

    @Test func boundPropertiesAreThoseBoundThroughTheControlExplainedUntyped() throws {
        let pin = PinCodeControl(codeLength: 2)
        let submit = Button(title: "Submit")
        submit.isEnabled = false  // the default, captured on first bind
        pin.setValue(true, for: \.isEnabled, of: submit, when: .containing([.filled, .valid]))
        // Four per dot (highlighted, enabled, valid, invalid), then Submit's.
        #expect(pin.boundProperties.count == 2 * 4 + 1)
        #expect(pin.boundProperties.last == BoundProperty(target: submit, keyPath: \Button.isEnabled))
        #expect(submit.boundProperties.isEmpty)  // bound through the PIN control, not through Submit
        let dot = pin.dots[0]
        #expect(dot.boundProperties.map(\.keyPath) == [\PinDot.fillColor, \PinDot.borderColor, \PinDot.borderWidth])

        let isEnabled = try #require(pin.boundProperties.last)
        #expect(pin.explain(isEnabled)?.value as? Bool == false && pin.explain(isEnabled)?.winner == nil)
        pin.insertText("13")
        #expect(pin.explain(isEnabled)?.value as? Bool == true)
        #expect(pin.explain(isEnabled)?.winner?.descriptor == .containing([.filled, .valid]))
        #expect(pin.explain(isEnabled, in: .normal)?.value as? Bool == false)  // another state, nothing applied
        #expect(submit.isEnabled)
        #expect(submit.explain(isEnabled) == nil)  // not bound through Submit

        let fill = try #require(dot.boundProperties.first)
        let explanation = try #require(dot.explain(fill))
        #expect(
            explanation.value as? Color == .green
                && explanation.winner?.descriptor == .containing([.selected, .valid], priority: .required - 1))
        // Not highlighted: blue does not match.
        #expect(explanation.candidates.filter(\.matches).map { $0.value as? Color } == [.green, .white])
    }

    @Test func transitionsAreReportedAsTheyHappenNestedOnesWithTheirDepth() {
        let control = Control()
        let label = Caption()
        control.setValue("sel", for: \.text, of: label, forAllStatesContained: .selected)
        var log: [String] = []
        control.addAction(Action { _ in log.append("valueChanged, text \(label.text)") }, for: .valueChanged)
        let observer = control.observeTransitions { change in log.append("\(change), applied [\(control.appliedState)]") }
        control.performTransition {
            control.isSelected = true
            control.sendActions(for: .valueChanged)
            control.performTransition { control.isFocused = true }
        }
        #expect(
            log == [
                "began (depth 1), applied [normal]", "began (depth 2), applied [normal]", "committed (depth 2), applied [normal]",
                // The outermost commit: applied, queued events sent, then reported.
                "valueChanged, text sel", "committed (depth 1), applied [selected | focused]",
            ])
        log = []
        control.performTransition(commit: false) { control.isSelected = false }
        #expect(log == ["began (depth 1), applied [selected | focused]", "ended (depth 1), applied [selected | focused]"])
        #expect(TransitionChange(kind: .ended, depth: 1).description == "ended (depth 1)")

        observer.cancel()
        log = []
        control.performTransition { control.isSelected = true }
        #expect(log.isEmpty)
    }

    @Test func aReleasedObserverHearsNothingAndAHandlerMayBeginATransition() {
        let control = Control()
        var heard: [TransitionChange] = []
        var observer: TransitionObserver? = control.observeTransitions { heard.append($0) }
        _ = observer
        observer = nil
        control.performTransition {}
        #expect(heard.isEmpty)

        // A handler that begins and commits a transition of its own when one commits: reported in turn.
        var nested = false
        let reentrant = control.observeTransitions { change in
            heard.append(change)
            if change.kind == .committed, !nested {
                nested = true
                control.performTransition { control.isHighlighted = true }
            }
        }
        control.performTransition { control.isSelected = true }
        #expect(heard.map(\.kind) == [.began, .committed, .began, .committed] && heard.allSatisfy { $0.depth == 1 })
        #expect(control.appliedState == [.selected, .highlighted] && !control.isInTransition)
        reentrant.cancel()
    }
}
