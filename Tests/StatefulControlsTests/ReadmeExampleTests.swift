// swift-format-ignore-file
// Not formatted: its code is the README's and the DocC articles' code blocks, line for line (the
// tests below check each block against it), formatted as the documentation shows it.

import Foundation
import Testing
import StatefulControls

// README.md's code blocks, verbatim (chunk by chunk, as `expectEveryBlock` checks), with what
// they claim asserted after them.

final class Toggle: Control {
    @StateFactor var isOn = false        // changing it re-applies the state
    var label = "off"

    init(on: ControlState) {
        super.init()
        register(on, for: $isOn)         // the factor pushes the state
        setValue("on", for: \.label, when: .containing(on))
    }
}

// The install snippet: a fragment of a client's Package.swift, kept here as text; the test below
// checks that the products it names are this package's.
let readmeInstallSnippet = """
    dependencies: [
        .package(url: "https://github.com/statefulcontrols/StatefulControls.git", from: "0.1.0"),
    ],
    targets: [
        .executableTarget(name: "MyApp", dependencies: [
            .product(name: "StatefulControls", package: "StatefulControls"),
        ]),
    ]
    """

@MainActor
@Suite("README examples")
struct ReadmeExampleTests {
    @Test func everyBlockIsHere() {
        expectEveryBlock(of: "README.md", isIn: #filePath)
    }

    @Test func installSnippetNamesThisPackagesProducts() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(manifest.contains(#"name: "StatefulControls","#))
        for product in ["StatefulControls", "StatefulEngine"] {
            #expect(manifest.contains(#".library(name: "\#(product)""#))
        }
        #expect(readmeInstallSnippet.contains(#".product(name: "StatefulControls", package: "StatefulControls")"#))
        #expect(readmeInstallSnippet.contains(#"from: "0.1.0""#))
        let changelog = try String(contentsOf: root.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        #expect(changelog.contains("## 0.1.0"))
    }

    @Test func toggle() throws {
        let on = try ControlState.allocate(named: "com.example.toggle.on")
        let toggle = Toggle(on: on)
        toggle.isOn = true                       // toggle.label == "on"
        toggle.isOn = false                      // toggle.label == "off": its default, captured at the first bind
        #expect(toggle.state == .normal && toggle.label == "off")
        toggle.isOn = true
        #expect(toggle.state == on && toggle.label == "on")
    }

    @Test func pinAndSubmit() {
        let pin = PinCodeControl(codeLength: 4)
        let submit = Button(title: "Submit")
        submit.isEnabled = false

        pin.setValue(true, for: \.isEnabled, of: submit, when: .containing([.filled, .valid]))
        submit.setValue(Color.grey, for: \.titleColor, when: .containing(.disabled))
        #expect(submit.titleColor == .grey)  // disabled now: bound while it was

        var seen: [(state: String, submitEnabled: Bool, titleColor: Color)] = []
        pin.addAction(Action { _ in seen.append((pin.state.description, submit.isEnabled, submit.titleColor)) }, for: .typeComplete)

        pin.addAction(Action { _ in print("complete: \(pin.state)") }, for: .typeComplete)
        pin.insertText("1357")     // prints "complete: org.statefulcontrols.filled | org.statefulcontrols.valid"
        pin.deleteBackward()       // submit.isEnabled == false and its title grey again
        print(pin.explain(\Button.isEnabled, of: submit))

        // When the code was complete, Submit was enabled, its title its default colour.
        #expect(seen.map(\.state) == ["org.statefulcontrols.filled | org.statefulcontrols.valid"])
        #expect(seen.map(\.submitEnabled) == [true])
        #expect(seen.map(\.titleColor) == [.blue])
        #expect(!submit.isEnabled)
        #expect(submit.titleColor == .grey)
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

    @Test func descriptorTable() {
        // The matching modes' table: default priorities and what each matches.
        let m: ControlState = [.selected, .highlighted]
        #expect(StateDescriptor.exactly(m).priority == 1000)
        #expect(StateDescriptor.containing(m).priority == 999)
        #expect(StateDescriptor.notContaining(m).priority == 750)
        #expect(StateDescriptor.containingAny(m).priority == 500)
        #expect(StateDescriptor.containingNone(m).priority == 500)
        #expect(StateDescriptor.exactly(m).matches(m) && !StateDescriptor.exactly(m).matches([.selected, .highlighted, .disabled]))
        #expect(StateDescriptor.containing(m).matches([.selected, .highlighted, .disabled]) && !StateDescriptor.containing(m).matches(.selected))
        #expect(StateDescriptor.notContaining(m).matches(.selected) && !StateDescriptor.notContaining(m).matches(m))
        #expect(StateDescriptor.containingAny(m).matches(.selected) && !StateDescriptor.containingAny(m).matches(.disabled))
        #expect(StateDescriptor.containingNone(m).matches(.disabled) && !StateDescriptor.containingNone(m).matches(.selected))
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
