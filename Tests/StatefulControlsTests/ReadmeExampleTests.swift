// swift-format-ignore-file
// Not formatted: its code is the README's and the DocC articles' code blocks, line for line (the
// tests below check each block against it), formatted as the documentation shows it.

import Testing
import StatefulControls

// README.md's code blocks, verbatim (chunk by chunk, as `expectEveryBlock` checks), with what
// they claim asserted after them.

final class Toggle: Control {
    @StateFactor var isOn = false          // changing it re-applies the state: no update() to call
    var label = "off"
    init(on: ControlState) {
        super.init()
        register(on, for: \._isOn)          // its storage: the factor pushes the state
        setValue("on", for: \.label, when: .containing(on))
    }
}

extension ControlEvents { static let saved = ControlEvents.application(1 << 24) }

@MainActor
@Suite("README examples")
struct ReadmeExampleTests {
    @Test func everyBlockIsHere() {
        expectEveryBlock(of: "README.md", isIn: #filePath)
    }

    @Test func pinAndSubmit() {
        // A control's state is computed from its factors; values bound to states follow it.
        let pin = PinCodeControl(codeLength: 4)
        let submit = Button(title: "Submit")
        submit.isEnabled = false

        // A dependency between controls: bound, not coded.
        pin.setValue(true, for: \.isEnabled, of: submit, when: .containing([.filled, .valid]))
        pin.setValue(Color.grey, for: \.titleColor, of: submit, when: .containing(.disabled))

        var seen: [(state: String, submitEnabled: Bool)] = []
        pin.addAction(Action { _ in seen.append((pin.state.description, submit.isEnabled)) }, for: .typeComplete)

        pin.addAction(Action { _ in print("complete: \(pin.state)") }, for: .typeComplete)
        pin.insertText("1357")        // prints "complete: org.statefulcontrols.filled | org.statefulcontrols.valid"
        pin.deleteBackward()          // submit.isEnabled == false again (its default)
        print(pin.explain(\Button.isEnabled, of: submit))

        #expect(seen.map(\.state) == ["org.statefulcontrols.filled | org.statefulcontrols.valid"])
        #expect(seen.map(\.submitEnabled) == [true])
        #expect(!submit.isEnabled)
        #expect(pin.explain(\Button.isEnabled, of: submit).candidates.map(\.descriptor) == [.containing([.filled, .valid])])
    }

    @Test func aListOfValues() {
        let submit = Button(title: "Submit")
        let titleColors: StateValues<Color> = [
            .containing(.disabled): .grey,
            .containing(.highlighted, priority: .required + 1): .white,
            .always: .blue,
        ]
        submit.setValues(titleColors, for: \.titleColor)
        #expect(submit.titleColor == .blue)
        submit.isHighlighted = true
        #expect(submit.titleColor == .white)
        submit.isEnabled = false
        #expect(submit.titleColor == .white)  // the given priority beats the first entry's
        submit.isHighlighted = false
        #expect(submit.titleColor == .grey)
    }

    @Test func toggle() throws {
        let on = try ControlState.allocate(named: "com.example.toggle.on")
        let toggle = Toggle(on: on)
        toggle.isOn = true
        #expect(toggle.state == on && toggle.label == "on")
        toggle.isOn = false
        #expect(toggle.label == "off")
        #expect(ControlEvents.saved.rawValue == 1 << 24)
    }

    @Test func resolverAlone() throws {
        final class Badge { var color = "black" }
        let badge = Badge()
        let resolver = StateResolver()
        try resolver.setValue("blue", for: \.color, of: badge, when: .containing(.selected))
        try resolver.setValue("grey", for: \.color, of: badge, when: .containing(.disabled, priority: 2000))
        try resolver.apply([.selected, .disabled])   // badge.color == "grey": the higher priority wins
        try resolver.apply(.normal)                  // badge.color == "black": the default, captured on first bind
        #expect(badge.color == "black")
        #expect(resolver.value(for: \.color, of: badge, in: [.selected, .disabled]) == "grey")
        try resolver.apply([.selected, .disabled])
        #expect(badge.color == "grey")
    }
}
