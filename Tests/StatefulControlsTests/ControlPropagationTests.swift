import Testing
@testable import StatefulControls

/// How a control's applies are ordered: transitions that apply once at their commit,
/// subscriptions told of each change, and controls whose bound values are other controls'
/// factors (dependencies), applied in turn, without nesting.
@MainActor
@Suite("Control: transitions, subscriptions and dependencies")
struct ControlPropagationTests {
    @Test func aTransitionAppliesOnceAtCommitThenSendsQueuedEvents() {
        let control = Control()
        let label = Caption()
        var log: [String] = []
        control.setValue("both", for: \.text, of: label, forAllStatesContained: [.selected, .focused])
        control.addAction(Action { _ in log.append("changed with text \(label.text)") }, for: .valueChanged)
        control.addAction(Action { _ in log.append("primary") }, for: .primaryActionTriggered)
        control.beginTransition()
        control.isSelected = true
        control.sendActions(for: .valueChanged)
        control.isFocused = true
        control.sendActions(for: .primaryActionTriggered)
        #expect(label.writes == 0 && log.isEmpty)
        #expect(control.appliedState == .normal && control.state == [.selected, .focused])
        control.commitTransition()
        #expect(label.writes == 1)
        #expect(log == ["changed with text both", "primary"])
    }

    @Test func endTransitionAppliesNothingAndDropsEvents() {
        let control = Control()
        let label = Caption()
        var sent = 0
        control.setValue("sel", for: \.text, of: label, forAllStatesContained: .selected)
        control.addAction(Action { _ in sent += 1 }, for: .valueChanged)
        control.performTransition(commit: false) {
            control.isSelected = true
            control.sendActions(for: .valueChanged)
        }
        #expect(label.writes == 0 && sent == 0 && control.appliedState == .normal)
        control.updateState()
        #expect(label.text == "sel")
    }

    @Test func nestedTransitionsApplyAtTheOutermostCommit() {
        let control = Control()
        let label = Caption()
        control.setValue("sel", for: \.text, of: label, forAllStatesContained: .selected)
        control.performTransition {
            control.performTransition { control.isSelected = true }
            #expect(label.writes == 0)
            #expect(control.isInTransition)
        }
        #expect(label.writes == 1 && !control.isInTransition)
    }

    @Test func subscriptionsAreEdgeTriggeredAndCancellable() {
        let control = Control()
        var calls: [ControlState] = []
        let subscription = control.subscribe(to: .containing(.selected)) { calls.append($0) }
        control.isSelected = true
        control.isFocused = true  // still matches: no call
        control.isSelected = false
        control.isSelected = true
        #expect(calls == [.selected, [.selected, .focused]])
        subscription.cancel()
        control.isSelected = false
        control.isSelected = true
        #expect(calls.count == 2 && subscription.isCancelled)
    }

    @Test func aReleasedSubscriptionEnds() {
        let control = Control()
        var calls = 0
        do {
            let subscription = control.subscribe(to: .containing(.focused)) { _ in calls += 1 }
            control.isFocused = true
            withExtendedLifetime(subscription) {}
        }
        control.isFocused = false
        control.isFocused = true
        #expect(calls == 1)
    }

    @Test func dependenciesPropagateAlongAChain() {
        let first = Control(), second = Control(), third = Control()
        first.setValue(true, for: \.isSelected, of: second, forAllStatesContained: .focused)
        second.setValue(false, for: \.isEnabled, of: third, forAllStatesContained: .selected)
        first.isFocused = true
        #expect(second.state == .selected && third.state == .disabled)
        first.isFocused = false
        #expect(second.state == .normal && third.state == .normal)
    }

    /// 100,000 controls, each selected while the one before is: the change propagates along
    /// the whole chain from a queue, without a call depth proportional to the chain (10,000
    /// overflowed the stack when each apply nested the next).
    @Test func aChainOf100000DependenciesPropagates() {
        let controls = (0..<100_000).map { _ in Control() }
        for (control, next) in zip(controls, controls.dropFirst()) {
            control.setValue(true, for: \.isSelected, of: next, forAllStatesContained: .selected)
        }
        controls[0].isSelected = true
        #expect(controls.allSatisfy { $0.appliedState == .selected })
        controls[0].isSelected = false
        #expect(controls.allSatisfy { $0.appliedState == .normal && !$0.isSelected })
    }

    /// A control that several controls depend on is applied once per change of its state,
    /// after the control that changed it, in the order the changes reached it.
    @Test func dependentsApplyAfterTheControlThatChangedThem() {
        let source = Control(), left = Control(), right = Control()
        var order: [String] = []
        source.setValue(true, for: \.isSelected, of: left, forAllStatesContained: .focused)
        source.setValue(true, for: \.isSelected, of: right, forAllStatesContained: .focused)
        let tokens = [(left, "left"), (right, "right"), (source, "source")].map { control, name in
            control.subscribe(to: .containing(control === source ? .focused : .selected)) { _ in order.append(name) }
        }
        source.isFocused = true
        #expect(order == ["source", "left", "right"])
        withExtendedLifetime(tokens) {}
    }

    /// A dependent whose change writes nothing (no rule reads the bits that moved, no
    /// subscriber, no predicate) is not queued: it moves to its state at once, so a later
    /// setter of the same apply sees it applied; a dependent with a rule to apply waits for
    /// the control that changed it.
    @Test func aDependentWithNothingToWriteMovesAtOnce() {
        final class Probe {
            var count = 0 { didSet { onSet() } }
            var onSet: () -> Void = {}
        }
        let source = Control(), plain = Control(), bound = Control(), probe = Probe()
        bound.setValue(true, for: \.isHidden, when: .containing(.selected))
        source.setValue(true, for: \.isSelected, of: plain, when: .containing(.focused))
        source.setValue(true, for: \.isSelected, of: bound, when: .containing(.focused))
        source.setValue(1, for: \.count, of: probe, when: .containing(.focused))  // written after both
        var seen: (plain: ControlState, bound: ControlState)?
        probe.onSet = { seen = (plain.appliedState, bound.appliedState) }
        source.isFocused = true
        #expect(seen?.plain == .selected && seen?.bound == .normal)
        #expect(bound.appliedState == .selected && bound.isHidden)
    }

    /// A dependent's sweeping move runs inside the apply that changed it (it writes nothing,
    /// so it is not queued): the dead target it purges releases its value there, and that
    /// value's deinit may bind on the applying control, whose apply then goes on with the
    /// binding made.
    @Test func aDependentsSweepingMoveReleasesInsideTheApplyThatMovedIt() {
        let source = Control(), dependent = Control()
        let label = Caption()
        var released = 0, releasedWhileSourceApplied = false
        source.setValue(false, for: \.isEnabled, of: dependent, when: .containing(.selected))
        do {
            let gone = DeinitCallbackHolder()
            let callback = DeinitCallback { [unowned source] in
                released += 1
                releasedWhileSourceApplied = source.resolver.isApplyingChanges
                source.setValue("bound from a deinit", for: \.text, of: label, when: .containing(.selected))
            }
            dependent.setValue(callback, for: \.callback, of: gone, when: .containing(.selected))
        }
        for _ in 0..<16 { source.isSelected.toggle() }  // 16 moves of the dependent's `disabled`
        #expect(released == 1 && releasedWhileSourceApplied && dependent.resolver.ruleCount == 0)
        #expect(dependent.isEnabled && dependent.appliedState == dependent.state)
        source.isSelected = true
        #expect(label.text == "bound from a deinit" && !dependent.isEnabled)
    }

    @Test func aDependencyCycleIsStoppedWithADiagnostic() {
        var diagnostics: [ControlDiagnostic] = []
        let saved = Control.diagnosticHandler
        Control.diagnosticHandler = { diagnostics.append($0) }
        defer { Control.diagnosticHandler = saved }
        let a = Control(), b = Control()
        // a focused -> b selected -> a not focused -> b not selected -> a focused -> ...
        a.setValue(true, for: \.isSelected, of: b, forAllStatesContained: .focused)
        b.setValue(false, for: \.isFocused, of: a, forAllStatesContained: .selected)
        b.setValue(true, for: \.isFocused, of: a, forInvertedState: .selected)
        a.isFocused = true
        #expect(!diagnostics.isEmpty)
        #expect(diagnostics.first?.message.contains("dependency cycle") == true)
        // Both controls still work afterwards.
        a.removeAllValues()
        b.removeAllValues()
        a.isSelected = true
        #expect(a.appliedState.contains(.selected))
    }
}
