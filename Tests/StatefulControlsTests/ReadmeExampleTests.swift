import Testing
import StatefulControls

// The README's usage examples, kept compiling and checked.

extension ControlState { static let readmeOn = try! ControlState.allocate(named: "myapp.on") }

final class Toggle: Control {
    @StateFactor var isOn = false
    var label = "off"
    override init(frame: Rect = .zero) {
        super.init(frame: frame)
        try! register(.readmeOn, for: \.isOn)
        setValue("on", for: \.label, when: .containing(.readmeOn))
    }
}

@MainActor
@Suite("README examples")
struct ReadmeExampleTests {
    @Test func pinAndSubmit() {
        let pin = PinCodeControl(codeLength: 4)
        let submit = Button(title: "Submit")
        submit.isEnabled = false
        pin.setValue(true, for: \.isEnabled, of: submit, when: .containing([.filled, .valid]))
        pin.setValue(Color.grey, for: \.titleColor, of: submit, when: .containing(.disabled))
        var completed: [ControlState] = []
        pin.addAction(Action { _ in completed.append(pin.state) }, for: .typeComplete)
        pin.insertText("1357")
        #expect(completed == [[.filled, .valid]] && submit.isEnabled)
        pin.deleteBackward()
        #expect(!submit.isEnabled)
        #expect(pin.explain(\Button.isEnabled, of: submit).description.contains("containing(filled | valid)")
                || pin.explain(\Button.isEnabled, of: submit).description.contains("containing(valid | filled)"))
    }

    @Test func toggle() {
        let toggle = Toggle()
        toggle.isOn = true
        #expect(toggle.label == "on")
        toggle.isOn = false
        #expect(toggle.label == "off")
    }

    @Test func resolverAlone() throws {
        final class Badge { var color = "black" }
        let label = Badge()
        let resolver = StateResolver()
        try resolver.setValue("blue", for: \.color, of: label, when: .containing(.selected))
        try resolver.setValue("grey", for: \.color, of: label, when: .containing(.disabled, priority: 2000))
        try resolver.apply([.selected, .disabled])
        #expect(label.color == "grey")
        try resolver.apply(.normal)
        #expect(label.color == "black")
    }
}
