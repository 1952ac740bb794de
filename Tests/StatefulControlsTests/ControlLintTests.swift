import Testing
@testable import StatefulControls

/// A target for the control lint tests.
final class LintedLabel {
    var color = Color.clear
    var text = "label"
}

@MainActor
@Suite("Control: rule lint over the reachable states")
struct ControlLintTests {
    let builtIn: ControlState = [.highlighted, .disabled, .selected, .focused]

    @Test func theReachableStatesAreTheCombinationsOfTheFactorsTheControlHas() {
        let plain = Control()
        #expect(plain.reachableStates.count == 16)
        #expect(Set(plain.reachableStates).count == 16)
        #expect(plain.reachableStates.allSatisfy { builtIn.isSuperset(of: $0) })
        #expect(plain.reachableStates.first == .normal && plain.reachableStates.last == builtIn)

        let toggle = Switch()  // registers switchOn and switchLoud
        #expect(toggle.reachableStates.count == 64)
        #expect(toggle.reachableStates.contains([.switchOn, .switchLoud, .disabled]))
        #expect(toggle.reachableStates.allSatisfy { builtIn.union([.switchOn, .switchLoud]).isSuperset(of: $0) })
        #expect(toggle.reachableStates == toggle.reachableStates.sorted { $0.rawValue < $1.rawValue })
    }

    @Test func theReachableStatesExcludeBitsTheControlCannotProduce() {
        let plain = Control()
        let label = LintedLabel()
        // The switch's custom state is allocated in the process, but this control never registers it.
        plain.setValue(Color.green, for: \.color, of: label, when: .containing(.switchOn))
        plain.setValue(Color.grey, for: \.color, of: label, when: .containing(.disabled))
        #expect(!plain.reachableStates.contains { $0.contains(.switchOn) })
        #expect(
            plain.lintRules() == [
                RuleDiagnostic(
                    problem: .neverMatches, target: "LintedLabel", targetIdentifier: ObjectIdentifier(label),
                    keyPath: "\\LintedLabel.color", descriptor: .containing(.switchOn), value: "green")
            ])
        // The same rule on a control that registers the state is fine.
        let toggle = Switch()
        toggle.setValue(Color.green, for: \.color, of: label, when: .containing(.switchOn))
        toggle.setValue(Color.grey, for: \.color, of: label, when: .containing(.disabled))
        #expect(toggle.lintRules() == [])
    }

    @Test func aShadowedRuleNamesTheRulesThatWinInEachStateItMatches() {
        let control = Control()
        let label = LintedLabel()
        control.setValue(Color.blue, for: \.color, of: label, when: .containing(.highlighted))
        control.setValue(Color.grey, for: \.color, of: label, when: .containingAny([.highlighted, .focused], priority: 2000))
        let diagnostics = control.lintRules()
        let states = control.reachableStates.filter { $0.contains(.highlighted) }
        #expect(states.count == 8)
        #expect(
            diagnostics == [
                RuleDiagnostic(
                    problem: .shadowed(by: [
                        .init(
                            descriptor: .containingAny([.highlighted, .focused], priority: 2000),
                            value: "grey", states: states)
                    ]),
                    target: "LintedLabel", targetIdentifier: ObjectIdentifier(label), keyPath: "\\LintedLabel.color",
                    descriptor: .containing(.highlighted), value: "blue")
            ])
    }

    @Test func bindingsThatNeverChangeAreReported() {
        let control = Control()
        let label = LintedLabel()
        control.setValue("label", for: \.text, of: label, when: .containing(.selected))  // the default again
        control.setValue(Color.red, for: \.color, of: label, when: .notContaining([]))  // never matches
        control.setValue(Color.red, for: \.color, of: label, when: .containing([]))  // always wins
        // In the order an apply writes: the key path bound first first.
        let diagnostics = control.lintRules()
        #expect(diagnostics.map(\.problem) == [.alwaysDefault, .neverMatches, .neverChanges])
        #expect(diagnostics.map(\.keyPath) == ["\\LintedLabel.text", "\\LintedLabel.color", "\\LintedLabel.color"])
        #expect(diagnostics.map(\.value) == ["label", "red", "red"])
    }

    @Test func theComponentsLintClean() {
        let pin = PinCodeControl()
        #expect(pin.lintRules() == [])
        #expect(pin.dots.allSatisfy { $0.lintRules().isEmpty })
        #expect(VisitableButton().lintRules() == [])
    }

    @Test func lintingDoesNotChangeTheControl() {
        let toggle = Switch()
        let label = LintedLabel()
        toggle.setValue(Color.green, for: \.color, of: label, when: .containing(.switchOn))
        toggle.isOn = true
        label.color = Color.white
        _ = toggle.lintRules()
        #expect(label.color == Color.white)
        #expect(toggle.appliedState == .switchOn && toggle.state == .switchOn)
    }
}
