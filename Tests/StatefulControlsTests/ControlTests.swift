import Testing
@testable import StatefulControls

/// A plain target whose writes are counted.
final class Caption {
    var text = "default" { didSet { writes += 1 } }
    var writes = 0
}

/// A bound value whose deinit is user code (`onDeinit`, which may call back), and a target
/// holding one: for the tests of what a sweep releases.
final class DeinitCallback {
    let onDeinit: () -> Void
    init(_ onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }
    deinit { onDeinit() }
}

final class DeinitCallbackHolder { var callback: DeinitCallback? }

/// A control with a custom state driven by a factor and one driven by a predicate.
extension ControlState {
    static let switchOn = try! ControlState.allocate(named: "com.example.tests.switch.on")
    static let switchLoud = try! ControlState.allocate(named: "com.example.tests.switch.loud")
}

final class Switch: Control {
    @StateFactor var isOn = false
    @StateFactor var volume = 0

    override init(frame: Rect = .zero) {
        super.init(frame: frame)
        register(.switchOn, for: $isOn, named: "isOn")
        register(.switchLoud, named: "volume above 5") { $0.volume > 5 }
    }
}

/// Factors registered both ways: a `@StateFactor` by its storage (pushed), the same factor
/// inverted for a second state, and computed properties reading one factor negated and two
/// factors (derived).
class FormField: Control {
    @StateFactor var isRequired = true
    @StateFactor var isFilled = false
    @StateFactor var isValid = false
    var isEmpty: Bool { !isFilled }
    var isComplete: Bool { isFilled && isValid }

    func register(required: ControlState, optional: ControlState) {
        register(required, for: \._isRequired)
        register(optional, for: \._isRequired, inverted: true)
    }
}

@MainActor
@Suite("Control: state and bound values")
struct ControlTests {
    @Test func aFactorRegisteredByItsStoragePushesItsStates() throws {
        let states = try (0..<4).map { try ControlState.allocate(named: "com.example.tests.field.state\($0)", in: .extendedApplication) }
        let (required, optional, empty, complete) = (states[0], states[1], states[2], states[3])
        let field = FormField()
        let caption = Caption()
        field.register(required: required, optional: optional)
        field.register(empty, whenever: \.isEmpty)
        field.register(complete, whenever: \.isComplete)
        field.setValue("required", for: \.text, of: caption, when: .containing(required))
        // isRequired pushes `required` while true, `optional` while false; the computed
        // properties are read on every evaluation.
        #expect(field.registeredStates.all.map(\.state) == [required, optional, empty, complete])
        #expect(field.registeredStates.derived.map(\.state) == [empty, complete])
        #expect(field.state == [required, empty] && caption.text == "required")
        field.isRequired = false
        #expect(field.state == [optional, empty] && caption.text == "default")
        field.isFilled = true
        #expect(field.state == [optional])
        field.isValid = true
        #expect(field.state == [optional, complete])
        field.isRequired = true
        #expect(field.state == [required, complete] && caption.text == "required")
        #expect(field.appliedState == field.state)
        // A factor of another control pushes nothing to this one.
        let other = FormField()
        other.isRequired = false
        #expect(field.state == [required, complete] && other.state == [])
    }

    @Test func aPushedStateInsideATransitionAppliesAtTheCommit() throws {
        let archived = try ControlState.allocate(named: "com.example.tests.field.archived", in: .extendedApplication)
        let field = FormField()
        let caption = Caption()
        field.register(required: archived, optional: .switchLoud)
        field.setValue("archived", for: \.text, of: caption, when: .containing(archived))
        #expect(caption.text == "archived")
        field.beginTransition()
        field.isRequired = false
        #expect(field.state == .switchLoud && caption.text == "archived")
        field.commitTransition()
        #expect(caption.text == "default" && field.appliedState == field.state)
    }

    @Test func changedPropertiesAreTheBoundValuesAStateChangeWrote() {
        let control = Control()
        let caption = Caption(), other = Caption()
        control.setValue("selected", for: \.text, of: caption, when: .containing(.selected))
        control.setValue("focused", for: \.text, of: other, when: .containing(.focused))
        var shown = control.appliedState
        control.isSelected = true
        let changed = control.changedProperties(from: shown, to: control.appliedState)
        shown = control.appliedState
        #expect(changed == [BoundProperty(target: caption, keyPath: \Caption.text)] && other.writes == 0)
        control.isSelected = false
        control.isFocused = true
        #expect(
            control.changedProperties(from: shown, to: control.appliedState)
                == [BoundProperty(target: caption, keyPath: \Caption.text), BoundProperty(target: other, keyPath: \Caption.text)])
    }

    /// An idle control's caches released (a page a server holds): nothing it shows changes,
    /// and its next state changes write what they write in a twin that keeps its caches,
    /// through its dependents too.
    @Test func releasingTheCachesOfAnIdleControlChangesNothingItShows() {
        func page() -> (pin: PinCodeControl, submit: Button) {
            let pin = PinCodeControl(codeLength: 2), submit = Button(title: "Submit")
            submit.isEnabled = false
            pin.setValue(true, for: \.isEnabled, of: submit, when: .containing([.filled, .valid]))
            return (pin, submit)
        }
        func shown(_ page: (pin: PinCodeControl, submit: Button)) -> [String] {
            page.pin.dots.flatMap { ["\($0.fillColor)", "\($0.borderColor)", "\($0.borderWidth)"] } + ["\(page.submit.isEnabled)"]
        }
        let released = page(), kept = page()
        let edits: [(PinCodeControl) -> Void] = [
            { $0.insertText("1") }, { $0.insertText("5") }, { $0.deleteBackward() }, { $0.insertText("2") }, { $0.deleteBackward() },
        ]
        for edit in edits {
            let before = shown(released)
            for control in [released.pin, released.submit] + released.pin.dots { control.releaseCaches() }
            #expect(shown(released) == before)
            edit(released.pin)
            edit(kept.pin)
            #expect(shown(released) == shown(kept))
        }
        #expect(released.submit.isEnabled == false && shown(released) != shown(page()))
    }

    @Test func stateIsComputedFromTheFactors() {
        let control = Control()
        #expect(control.state == .normal)
        control.isEnabled = false
        control.isSelected = true
        #expect(control.state == [.disabled, .selected])
        control.isHighlighted = true
        control.isFocused = true
        control.isEnabled = true
        #expect(control.state == [.highlighted, .selected, .focused])
        #expect(control.appliedState == control.state)
    }

    @Test func customStatesFollowTheirFactorsAndPredicates() {
        let control = Switch()
        control.isOn = true
        #expect(control.state == .switchOn)
        control.volume = 9
        #expect(control.state == [ControlState.switchOn, .switchLoud])
        #expect(control.appliedState == control.state)
        // Lowest bit first; which of the two got the lower bit depends on test order.
        #expect(Set(control.state.description.split(separator: " | ")) == ["com.example.tests.switch.on", "com.example.tests.switch.loud"])
    }

    @Test func anInvertedKeyPathRegistration() {
        let control = Control()
        let quiet = ControlState.switchLoud  // any application bit not used on this control
        control.register(quiet, whenever: \.isSelected, inverted: true)
        #expect(control.state == quiet)
        control.isSelected = true
        #expect(control.state == .selected)
    }

    @Test func everyModeThroughTheControlAPI() {
        let control = Control()
        let label = Caption()
        control.setValue("exact", for: \.text, of: label, forState: [.selected, .focused])
        control.setValue("contained", for: \.text, of: label, forAllStatesContained: .selected)
        control.setValue("inverted", for: \.text, of: label, forInvertedState: .focused)
        control.setValue("any", for: \.text, of: label, when: .containingAny([.highlighted, .disabled]))
        control.setValue("none", for: \.text, of: label, when: .containingNone(.focused, priority: 100))
        control.setValue("custom", for: \.text, of: label, when: .custom("three bits", priority: 1500) { $0.rawValue.nonzeroBitCount >= 3 })
        let expectations: [(ControlState, String)] = [
            ([.selected, .focused], "exact"),
            ([.selected, .focused, .highlighted], "custom"),
            (.selected, "contained"),
            (.normal, "inverted"),
            ([.focused, .highlighted], "any"),
            (.focused, "default"),
        ]
        for (state, text) in expectations {
            #expect(control.value(for: \.text, of: label, in: state) == text, "in \(state)")
        }
        control.isSelected = true
        #expect(label.text == "contained")
        control.isFocused = true
        #expect(label.text == "exact")
    }

    @Test func aNewValueIsWrittenOnlyWhenItWins() {
        let control = Control()
        control.isSelected = true
        let label = Caption()
        control.setValue("exact", for: \.text, of: label, forState: .selected)
        #expect(label.text == "exact" && label.writes == 1)
        control.setValue("contained", for: \.text, of: label, forAllStatesContained: .selected)
        #expect(label.text == "exact" && label.writes == 1)
        control.setValue("elsewhere", for: \.text, of: label, forState: .focused)
        #expect(label.writes == 1)
    }

    @Test func onlyTheValuesThatDifferAreWritten() {
        let control = Control()
        let labels = (0..<3).map { _ in Caption() }
        control.setValue("sel", for: \.text, of: labels[0], forAllStatesContained: .selected)
        control.setValue("sel", for: \.text, of: labels[1], forAllStatesContained: .selected)
        control.setValue("foc", for: \.text, of: labels[2], forAllStatesContained: .focused)
        control.isSelected = true
        #expect(labels.map(\.writes) == [1, 1, 0])
        control.isSelected = true  // unchanged: nothing happens
        control.updateState()
        #expect(labels.map(\.writes) == [1, 1, 0])
        control.isFocused = true
        #expect(labels.map(\.writes) == [1, 1, 1])
        control.isHighlighted = true  // nothing bound to highlighted
        #expect(labels.map(\.writes) == [1, 1, 1])
    }

    /// A change of bits no rule reads writes nothing and only moves the applied state (no
    /// apply runs): a value bound later for those bits wins at once where the state has them,
    /// a target that went is still found by the sweep that every eighth change makes, and the
    /// control's state and applied state stay the same.
    @Test func aChangeOfBitsNoRuleReadsOnlyMovesTheAppliedState() {
        let control = Control()
        let kept = Caption()
        control.setValue("selected", for: \.text, of: kept, when: .containing(.selected))
        do {
            let gone = Caption()
            control.setValue("selected", for: \.text, of: gone, when: .containing(.selected))
        }
        #expect(control.resolver.ruleCount == 2)
        for change in 1...16 {
            control.isFocused.toggle()
            #expect(control.appliedState == control.state)
            if change < 8 { #expect(control.resolver.ruleCount == 2) }  // the dead target's rule waits
        }
        #expect(control.resolver.ruleCount == 1)  // swept at the eighth change
        #expect(kept.writes == 0)
        control.isHighlighted = true
        control.setValue("highlighted", for: \.text, of: kept, when: .containing(.highlighted))
        #expect(kept.text == "highlighted" && kept.writes == 1)
    }

    /// The sweeping move (every eighth change of bits no rule reads) releases what it purged
    /// before it returns, as an apply does: the dead target's value goes then, and its deinit,
    /// user code, may bind on the same control.
    @Test func aMoveThatSweepsReleasesWhatItPurged() {
        let control = Control()
        let kept = Caption()
        var released = 0
        do {
            let gone = DeinitCallbackHolder()
            let callback = DeinitCallback { [unowned control] in
                released += 1
                control.setValue("bound from a deinit", for: \.text, of: kept, when: .containing(.selected))
            }
            control.setValue(callback, for: \.callback, of: gone, when: .containing(.selected))
        }
        for change in 1...8 {
            #expect(released == 0 || change == 8)
            control.isFocused.toggle()
        }
        #expect(released == 1 && control.resolver.ruleCount == 1)
        control.isSelected = true
        #expect(kept.text == "bound from a deinit")
    }

    @Test func tiesGoToTheMostRecentValue() {
        let control = Control()
        let label = Caption()
        control.isSelected = true
        control.setValue("first", for: \.text, of: label, when: .containingAny(.selected))
        control.setValue("second", for: \.text, of: label, when: .containingNone(.disabled))
        #expect(label.text == "second")
        let explanation = control.explain(\Caption.text, of: label)
        #expect(explanation.candidates.filter(\.matches).map(\.value) == ["second", "first"])
        #expect(explanation.candidates.map(\.descriptor.priority) == [500, 500] && explanation.value == "second")
    }

    @Test func removingValues() {
        let control = Control()
        let label = Caption()
        control.isSelected = true
        control.setValue("sel", for: \.text, of: label, forAllStatesContained: .selected)
        control.setValue("exact", for: \.text, of: label, forState: .selected)
        #expect(control.removeValue(for: \.text, of: label, when: .exactly(.selected)))
        #expect(label.text == "sel")
        control.removeValues(for: \.text, of: label)
        #expect(label.text == "default")
        control.setValue("again", for: \.text, of: label, forAllStatesContained: .selected)
        control.removeValues(of: label)
        #expect(label.text == "default")
        control.setValue("all", for: \.text, of: label, forAllStatesContained: .selected)
        control.removeAllValues()
        #expect(label.text == "default")
    }

    @Test func contentAlignmentIsBindableAndResolvesLeadingAndTrailing() {
        let control = Control()
        control.setValue(.leading, for: \.contentHorizontalAlignment, when: .containing(.selected))
        control.setValue(.top, for: \.contentVerticalAlignment, when: .containing(.selected))
        #expect(control.effectiveContentHorizontalAlignment == .center)
        control.isSelected = true
        #expect(control.contentVerticalAlignment == .top)
        #expect(control.effectiveContentHorizontalAlignment == .left)
        control.layoutDirection = .rightToLeft
        #expect(control.effectiveContentHorizontalAlignment == .right)
        control.contentHorizontalAlignment = .trailing
        #expect(control.effectiveContentHorizontalAlignment == .left)
    }
}
