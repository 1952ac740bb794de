import Testing
@testable import StatefulControls

@MainActor
@Suite("Components: VisitableButton and PinCodeControl")
struct ComponentTests {
    func tap(_ control: Control) {
        control.touchesBegan(Touch(location: Point(x: 5, y: 5), phase: .began))
        control.touchesEnded(Touch(location: Point(x: 5, y: 5), phase: .ended))
    }

    @Test func aVisitableButtonTurnsPurpleOnceVisited() {
        let button = VisitableButton(title: "Docs")
        #expect(button.titleColor == .blue)
        #expect(button.state == .normal)
        tap(button)
        #expect(button.isVisited)
        #expect(button.state == .visited)
        #expect(button.titleColor == .purple)
        button.isEnabled = false
        #expect(button.titleColor == .purple)  // still visited
        #expect(button.state.description == "disabled | org.statefulcontrols.visited")
    }

    /// The app's rule through `\Button.titleColor` and the button's own are one property: the
    /// app's grey at 2000 beats the visited purple at 999. With the direct property access
    /// `\VisitableButton.titleColor` is that property too; with the portable one, the key path
    /// the button binds (`\Button.titleColor`, its declaring class) is.
    @Test func aRuleThroughTheBaseClassKeyPathCompetesWithTheSubclasses() {
        let button = VisitableButton(title: "Docs")
        let asButton: Button = button
        button.setValue(
            Color.grey, for: \Button.titleColor, of: asButton,
            when: .containing(.disabled, priority: 2000))
        tap(button)
        #expect(button.titleColor == .purple)
        button.isEnabled = false
        #expect(button.titleColor == .grey)
        let explanation =
            PropertyAccess.current == .direct
            ? button.explain(\VisitableButton.titleColor, of: button) : button.explain(\Button.titleColor, of: asButton)
        #expect(explanation.candidates.count == 3 && explanation.winner?.descriptor.priority == 2000)
        button.isEnabled = true
        #expect(button.titleColor == .purple)
    }

    @Test func typingAValidCode() {
        let pin = PinCodeControl()
        var events: [String] = []
        pin.addAction(Action { _ in events.append("valueChanged \(pin.code)") }, for: .valueChanged)
        pin.addAction(Action { _ in events.append("typeComplete \(pin.state)") }, for: .typeComplete)
        pin.insertText("13")
        #expect(pin.state == .normal)
        #expect(pin.dots.map(\.fillColor) == [.white, .white, .clear, .clear])
        pin.insertText("5x7")
        #expect(pin.code == "1357")
        #expect(pin.state == [.filled, .valid])
        #expect(pin.dots.allSatisfy { $0.fillColor == .green && $0.borderColor == .green })
        #expect(events == ["valueChanged 13", "valueChanged 1357", "typeComplete \(ControlState([.filled, .valid]))"])
        pin.insertText("9")  // full: ignored
        #expect(pin.code == "1357" && events.count == 3)
    }

    @Test(arguments: ["1111", "1234", "9876", "0123"])
    func rejectedCodesAreInvalid(_ code: String) {
        let pin = PinCodeControl()
        pin.insertText(code)
        #expect(pin.state == [.filled, .invalid])
        #expect(pin.dots.allSatisfy { $0.fillColor == .red && $0.borderColor == .red && $0.borderWidth == 2 })
    }

    @Test func deletingAndClearing() {
        let pin = PinCodeControl()
        pin.insertText("1111")
        pin.deleteBackward()
        #expect(pin.code == "111" && pin.state == .normal)
        #expect(pin.dots.map(\.fillColor) == [.white, .white, .white, .clear])
        #expect(pin.dots.allSatisfy { $0.borderColor == .grey && $0.borderWidth == 1 })
        pin.insertText("2")
        #expect(pin.state == [.filled, .valid])
        var changes = 0
        pin.addAction(Action { _ in changes += 1 }, for: .valueChanged)
        pin.clear()
        #expect(pin.code.isEmpty && pin.state == .normal && changes == 1)
        #expect(pin.dots.allSatisfy { $0.fillColor == .clear && $0.borderColor == .grey })
    }

    @Test func highlightingAndDisablingRestyleTheDots() {
        let pin = PinCodeControl()
        pin.insertText("12")
        pin.isHighlighted = true
        #expect(pin.dots.map(\.fillColor) == [.blue, .blue, .clear, .clear])
        #expect(pin.dots.allSatisfy { $0.borderColor == .blue && $0.borderWidth == 2 })
        pin.isHighlighted = false
        pin.isEnabled = false
        #expect(pin.dots.map(\.fillColor) == [.grey, .grey, .clear, .clear])
        #expect(pin.dots.allSatisfy { $0.borderColor == .darkGrey && $0.borderWidth == 0.5 && !$0.isEnabled })
        pin.insertText("34")  // disabled: ignored
        pin.deleteBackward()
        #expect(pin.code == "12")
        pin.isEnabled = true
        #expect(pin.dots.map(\.fillColor) == [.white, .white, .clear, .clear])
    }

    @Test func aSubmitButtonIsEnabledOnlyWhileTheCodeIsFilledAndValid() {
        let pin = PinCodeControl()
        let submit = Button(title: "Submit")
        submit.isEnabled = false
        pin.setValue(true, for: \.isEnabled, of: submit, when: .containing([.filled, .valid]))
        pin.insertText("135")
        #expect(!submit.isEnabled)
        pin.insertText("7")
        #expect(submit.isEnabled)
        pin.deleteBackward()
        #expect(!submit.isEnabled)
        pin.insertText("5")  // 1355: valid? digits 1,3,5,5 are not a run
        #expect(submit.isEnabled)
        pin.clear()
        pin.insertText("4444")
        #expect(!submit.isEnabled)
    }

    @Test func aCustomValidatorReevaluatesTheState() {
        let pin = PinCodeControl(codeLength: 3)
        pin.insertText("123")
        #expect(pin.state.contains(.invalid))
        pin.validator = { _ in true }
        #expect(pin.state.contains(.valid))
        #expect(pin.dots.allSatisfy { $0.fillColor == .green })
        #expect(pin.explain(\PinDot.isValid, of: pin.dots[0]).winner?.descriptor == .containing(.valid))
    }

    @Test func theDefaultValidator() {
        #expect(PinCodeControl.isAcceptable("1357"))
        #expect(PinCodeControl.isAcceptable("1121"))
        #expect(!PinCodeControl.isAcceptable("0000"))
        #expect(!PinCodeControl.isAcceptable("3456"))
        #expect(!PinCodeControl.isAcceptable("6543"))
    }
}
