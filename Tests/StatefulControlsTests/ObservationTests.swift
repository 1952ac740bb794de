import Observation
import Synchronization
import Testing
import StatefulControls

/// `Control.state` and the factors through the Observation module: a tracking closure that
/// reads them is told when they change, and not otherwise.
@MainActor
@Suite("Observation: state and factors")
struct ObservationTests {
    /// Counts the changes a `withObservationTracking` reported (its `onChange` is `@Sendable`).
    final class Changes: Sendable {
        private let count = Mutex(0)
        var value: Int { count.withLock { $0 } }
        func record() { count.withLock { $0 += 1 } }
    }

    /// Tracks `read` once; returns what counts the change.
    func track(_ read: () -> Void) -> Changes {
        let changes = Changes()
        withObservationTracking(read) { changes.record() }
        return changes
    }

    @Test func aFactorChangeThatChangesTheStateIsReported() {
        let control = Control()
        let changes = track { _ = control.state }
        control.isSelected = true
        #expect(changes.value == 1)
        // Tracking is one-shot: a new read observes again.
        let again = track { _ = control.state }
        control.isHighlighted = true
        #expect(again.value == 1)
    }

    @Test func aFactorSetToItsValueOrAFactorThatLeavesTheStateReportsNothing() {
        final class Field: Control {
            @StateFactor var text = ""
        }
        let field = Field()
        field.isSelected = true
        let changes = track { _ = field.state }
        field.isSelected = true  // already selected
        field.text = "typed"  // a factor no custom state reads: the state stays
        #expect(changes.value == 0)
        field.isSelected = false
        #expect(changes.value == 1)
    }

    @Test func aCustomStateChangeIsReported() throws {
        final class Switch: Control {
            @StateFactor var isOn = false
        }
        let on = try ControlState.allocate(named: "com.example.tests.switch.on")
        let control = Switch()
        control.register(on, for: control.$isOn)
        let changes = track { _ = control.state }
        control.isOn = true
        #expect(changes.value == 1 && control.state.contains(on))
    }

    @Test func eachFactorIsObservable() {
        let control = Control()
        let enabled = track { _ = control.isEnabled }
        let selected = track { _ = control.isSelected }
        control.isSelected = true
        #expect(enabled.value == 0 && selected.value == 1)
        control.isEnabled = false
        #expect(enabled.value == 1)
        let highlighted = track { _ = control.isHighlighted }, focused = track { _ = control.isFocused }
        control.isFocused = true
        #expect(highlighted.value == 0 && focused.value == 1)
    }

    /// `toggle()` changes a factor in place: observers of the factor and of the state are told,
    /// bound values follow, and the change in place is not itself a tracked read.
    @Test func aFactorChangedInPlaceIsReportedAndIsNotARead() {
        let control = Control()
        control.setValue(true, for: \.isHidden, of: control, when: .containing(.selected))
        let steps: [(read: () -> Void, toggle: () -> Void, state: ControlState)] = [
            ({ _ = control.isEnabled }, { control.isEnabled.toggle() }, .disabled),
            ({ _ = control.isSelected }, { control.isSelected.toggle() }, [.disabled, .selected]),
            ({ _ = control.isHighlighted }, { control.isHighlighted.toggle() }, [.disabled, .selected, .highlighted]),
            ({ _ = control.isFocused }, { control.isFocused.toggle() }, [.disabled, .selected, .highlighted, .focused]),
        ]
        for step in steps {
            let factor = track(step.read), state = track { _ = control.state }
            step.toggle()
            #expect(factor.value == 1 && state.value == 1 && control.state == step.state)
        }
        #expect(!control.isEnabled && control.isHidden)
        // A closure that only toggles read nothing: a later change is not reported to it, even
        // once the factor was read (untracked) and its change is reported.
        let toggledOnly = track { control.isSelected.toggle() }
        #expect(!control.isSelected && !control.isHidden)
        _ = control.isSelected
        control.isSelected = true
        #expect(toggledOnly.value == 0 && control.isHidden)
    }

    /// A tracking closure that reads a factor or the state and then changes it itself is told
    /// of the next change: its own change is reported before its observer is installed.
    @Test func aClosureThatChangesWhatItReadIsToldOfTheNextChange() {
        let control = Control()
        let factor = track {
            let wasSelected = control.isSelected
            control.isSelected = !wasSelected
        }
        // Checked through what the closure did not read: a read here would observe again.
        #expect(factor.value == 0 && control.state == .selected)
        control.isSelected = false
        #expect(factor.value == 1)
        let state = track { if control.state.isEmpty { control.isHighlighted = true } }
        #expect(state.value == 0 && control.isHighlighted)
        control.isHighlighted = false
        #expect(state.value == 1)
        // Told once: tracking is one-shot, and the read is forgotten after a second report.
        control.isHighlighted = true
        #expect(state.value == 1)
    }

    @Test func inATransitionTheStateIsReportedWhenItChanges() {
        let control = Control()
        let changes = track { _ = control.state }
        control.performTransition {
            control.isSelected = true
        }
        #expect(changes.value == 1 && control.appliedState == .selected)
    }
}
