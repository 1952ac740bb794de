// swift-format-ignore-file
// Not formatted: its code is the README's and the DocC articles' code blocks, line for line (the
// tests below check each block against it), formatted as the documentation shows it.

import Foundation
import Observation
import Testing
import StatefulControls

// The DocC articles' code blocks, verbatim (chunk by chunk, as `expectEveryBlock` checks), with
// what they claim asserted after them. Declarations are at file scope, statements in the tests;
// the `text` blocks that show output are compared with the output itself.

/// The articles, relative to the package root.
enum DocCArticle {
    static let overview = "Sources/StatefulControls/StatefulControls.docc/StatefulControls.md"
    static let stateResolution = "Sources/StatefulControls/StatefulControls.docc/StateResolution.md"
    static let eventsAndTracking = "Sources/StatefulControls/StatefulControls.docc/EventsAndTracking.md"
    static let customControl = "Sources/StatefulControls/StatefulControls.docc/BuildingACustomControl.md"
    static let engine = "Sources/StatefulEngine/StatefulEngine.docc/StatefulEngine.md"

    /// The ```text blocks of `article`, each as one string.
    static func textBlocks(of article: String, filePath: String = #filePath) throws -> [String] {
        let root = URL(fileURLWithPath: filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let markdown = try String(contentsOf: root.appendingPathComponent(article), encoding: .utf8)
        return DocumentationBlocks.blocks(in: markdown, language: "text").blocks.map { $0.lines.joined(separator: "\n") }
    }
}

// MARK: BuildingACustomControl.md

struct CodeStates {
    let filled: ControlState
    let valid: ControlState

    init() throws(CustomStateError) {
        filled = try ControlState.allocate(named: "com.example.code.filled")
        valid = try ControlState.allocate(named: "com.example.code.valid")
    }
}

final class CodeField: Control {
    @StateFactor private(set) var code = ""
    let length: Int
    let complete: ControlEvents
    var tint = Color.grey

    init(length: Int = 4, states: CodeStates, complete: ControlEvents) {
        self.length = length
        self.complete = complete
        super.init()
        register(states.filled, named: "code is complete") { $0.code.count == $0.length }
        register(states.valid, named: "complete code is acceptable") {
            $0.code.count == $0.length && PinCodeControl.isAcceptable($0.code)
        }
        setValue(Color.green, for: \.tint, when: .containing([states.filled, states.valid]))
        setValue(Color.red, for: \.tint, when: .containing(states.filled, priority: 900))
        setValue(Color.grey, for: \.tint, when: .containing(.disabled, priority: 2000))
    }

    func insert(_ digit: Character) {
        guard isEnabled, code.count < length else { return }
        performTransition {
            code.append(digit)
            sendActions(for: .valueChanged)
            if code.count == length { sendActions(for: complete) }
        }
    }

    func deleteBackward() {
        guard isEnabled, !code.isEmpty else { return }
        code.removeLast()
        sendActions(for: .valueChanged)
    }
}

final class Lamp: Control {
    @StateFactor var isOn = false
    var isOff: Bool { !isOn }

    init(on: ControlState, off: ControlState) {
        super.init()
        register(on, for: $isOn)          // pushed by the factor
        register(off, whenever: \.isOff)  // read on every evaluation
    }
}

extension CodeField: Stateful {
    static func locked() -> State<CodeField> {
        state { $0.isEnabled = false }
    }
}

// MARK: EventsAndTracking.md

struct EditorEvents {
    let saved: ControlEvents

    init() throws(CustomEventError) {
        saved = try ControlEvents.allocate(named: "com.example.editor.saved")
    }
}

final class LoginScreen: View {
    private(set) var submissions = 0
    func submit() { submissions += 1 }
}

extension Selector where Target == LoginScreen {
    static let submit = Selector("submit", LoginScreen.submit)
}

// MARK: The tests

@MainActor
@Suite("DocC examples")
struct DocCExampleTests {
    // Every swift block of every article but StatefulEngine.md (DocCEngineExampleTests.swift) is
    // in this file.

    @Test func overviewBlocksAreHere() { expectEveryBlock(of: DocCArticle.overview, isIn: #filePath) }
    @Test func stateResolutionBlocksAreHere() { expectEveryBlock(of: DocCArticle.stateResolution, isIn: #filePath) }
    @Test func eventsAndTrackingBlocksAreHere() { expectEveryBlock(of: DocCArticle.eventsAndTracking, isIn: #filePath) }
    @Test func customControlBlocksAreHere() { expectEveryBlock(of: DocCArticle.customControl, isIn: #filePath) }

    // StatefulControls.md

    /// The overview's concurrency block, compiled (its loops run until the controls go; the
    /// APIs are tested in AsyncSequenceTests and ObservationTests).
    func overviewConcurrencyBlock(submit: Button, pin: PinCodeControl, send: (Event) -> Void,
                                  render: (ControlState) -> Void,
                                  scheduleRedraw: @escaping @Sendable () -> Void) async {
        for await event in submit.events(for: .primaryActionTriggered) { send(event) }
        for await state in pin.appliedStates() { render(state) }
        withObservationTracking { _ = pin.state } onChange: { scheduleRedraw() }
    }

    @Test func overview() {
        let pin = PinCodeControl()
        let submit = Button(title: "Submit")
        submit.isEnabled = false
        pin.setValue(true, for: \.isEnabled, of: submit, when: .containing([.filled, .valid]))
        pin.insertText("1357")   // submit.isEnabled == true
        #expect(submit.isEnabled)
        #expect(pin.state == [.filled, .valid])
        pin.deleteBackward()
        #expect(!submit.isEnabled)
    }

    // StateResolution.md

    @Test func aListOfValues() {
        let fills = StateValues<String> {
            (.containing(.disabled), "grey")
            (.containing(.selected), "green")
            (.always, "clear")
        }
        final class Cell { var fill = "none" }
        let cell = Cell()
        let list = Control()
        list.setValues(fills, for: \.fill, of: cell)     // cell.fill == "clear"
        list.isSelected = true                           // cell.fill == "green"
        #expect(cell.fill == "green")
        list.isEnabled = false
        #expect(cell.fill == "grey")
    }

    @Test func aClosureOfTheState() {
        final class Dot { var fill = "clear" }
        let dot = Dot()
        let pin = Control()
        pin.setValue(for: \.fill, of: dot) { state in
            state.contains(.disabled) ? "grey" : state.contains(.selected) ? "white" : "clear"
        }
        pin.isSelected = true                            // dot.fill == "white"
        #expect(dot.fill == "white")
        pin.isEnabled = false
        #expect(dot.fill == "grey")
    }

    @Test func defaults() {
        final class Title { var text = "Untitled" }
        let title = Title()
        let control = Control()
        control.setValue("Chosen", for: \.text, of: title, when: .containing(.selected))
        #expect(title.text == "Untitled")

        control.isSelected = true                        // title.text == "Chosen"
        #expect(title.text == "Chosen")

        control.isSelected = false                       // title.text == "Untitled": the default
        #expect(title.text == "Untitled")

        control.isSelected = true
        control.removeValues(for: \.text, of: title)     // title.text == "Untitled" again
        #expect(title.text == "Untitled")
        #expect(control.value(for: \.text, of: title, in: .selected) == nil)
    }

    @Test func explainingATie() throws {
        final class Swatch { var fill = "clear" }
        let swatch = Swatch()
        let owner = Control()
        owner.setValue("grey", for: \.fill, of: swatch, when: .containing([.selected, .disabled], priority: 2000))
        owner.setValue("green", for: \.fill, of: swatch, when: .containing(.selected))
        owner.setValue("blue", for: \.fill, of: swatch, when: .containingAny([.selected, .highlighted], priority: 999))
        owner.isSelected = true                          // swatch.fill == "blue"
        print(owner.explain(\Swatch.fill, of: swatch))
        #expect(swatch.fill == "blue")
        let explanation = owner.explain(\Swatch.fill, of: swatch)
        #expect(explanation.winner?.value == "blue")
        #expect(explanation.candidates.map(\.matches) == [false, true, true])
        #expect(try DocCArticle.textBlocks(of: DocCArticle.stateResolution) == [explanation.description])
    }

    // EventsAndTracking.md

    @Test func targetAction() {
        let screen = LoginScreen()
        let button = Button(title: "Log in")
        button.addTarget(screen, action: .submit, for: .primaryActionTriggered)
        button.sendActions(for: .primaryActionTriggered)   // screen.submissions == 1
        #expect(screen.submissions == 1)
        #expect(button.actions(forTarget: screen, forControlEvent: .primaryActionTriggered) == ["submit"])
        button.sendActions(for: .touchUpInside)
        #expect(screen.submissions == 1)
    }

    @Test func responderChain() {
        let form = LoginScreen()
        let send = Button(title: "Send")
        form.addSubview(send)
        send.addTarget(nil, action: Selector<LoginScreen>.submit, for: .primaryActionTriggered)
        send.sendActions(for: .primaryActionTriggered)     // form.submissions == 1: found up the chain
        #expect(form.submissions == 1)
        send.removeFromSuperview()
        send.sendActions(for: .primaryActionTriggered)
        #expect(form.submissions == 1)
    }

    @Test func touchTracking() {
        let ok = Button(title: "OK")                       // 120 × 44
        var sent: [ControlEvents] = []
        ok.addAction(Action { action in if let event = action.event { sent.append(event.events) } }, for: .allEvents)
        ok.touchesBegan(Touch(location: Point(x: 60, y: 22), phase: .began))
        ok.touchesMoved(Touch(location: Point(x: 180, y: 22), phase: .moved))   // 60 points past the edge: inside
        ok.touchesEnded(Touch(location: Point(x: 180, y: 22), phase: .ended))
        // sent == [.touchDown, .touchDragInside, .touchUpInside, .primaryActionTriggered]
        #expect(sent == [.touchDown, .touchDragInside, .touchUpInside, .primaryActionTriggered])
        #expect(ok.bounds.size == Size(width: 120, height: 44) && ok.trackingArea.contains(Point(x: 180, y: 22)))
        #expect(!ok.isHighlighted && !ok.isTracking)
    }

    @Test func customEvents() throws {
        let events = try EditorEvents()
        let save = Button(title: "Save")
        save.addAction(Action { _ in print("saved") }, for: events.saved)
        save.sendActions(for: events.saved)                // prints "saved"
        var saves = 0
        save.addAction(Action { _ in saves += 1 }, for: events.saved)
        save.sendActions(for: events.saved)
        save.sendActions(for: .primaryActionTriggered)
        #expect(saves == 1)
        #expect(try EditorEvents().saved == events.saved)  // allocating a name again: the same event
        #expect(ControlEvents.applicationReserved.contains(events.saved) && events.saved.rawValue.nonzeroBitCount == 1)
        #expect(events.saved.description == "com.example.editor.saved")
    }

    // BuildingACustomControl.md

    @Test func customControl() throws {
        let codeComplete = try ControlEvents.allocate(named: "com.example.code.complete")
        #expect(ControlEvents.applicationReserved.contains(codeComplete))

        let states = try CodeStates()
        let field = CodeField(states: states, complete: codeComplete)
        let submit = Button(title: "Submit")
        submit.isEnabled = false
        field.setValue(true, for: \.isEnabled, of: submit, when: .containing([states.filled, states.valid]))
        #expect(states.filled.isCustom && states.valid.isCustom && states.filled != states.valid)
        #expect(try CodeStates().filled == states.filled)   // allocating a name again: the same bit
        #expect(field.tint == .grey && !submit.isEnabled)

        var completions: [ControlState] = []
        field.addAction(Action { _ in completions.append(field.state) }, for: codeComplete)
        field.addAction(Action { _ in print("complete: \(field.state)") }, for: codeComplete)
        for digit in "1357" { field.insert(digit) }   // prints "complete: com.example.code.filled | com.example.code.valid"
        #expect(completions == [[states.filled, states.valid]])
        #expect(field.state.description == "com.example.code.filled | com.example.code.valid")
        #expect(field.tint == .green && submit.isEnabled)

        field.deleteBackward()                          // submit.isEnabled == false: its default again
        #expect(!submit.isEnabled && field.tint == .grey && field.code == "135")

        field.insert("9")                               // 1359: complete again, so codeComplete again
        #expect(completions.count == 2 && submit.isEnabled && field.tint == .green && field.code == "1359")

        field.isEnabled = false
        print(field.explain(\CodeField.tint, of: field))
        #expect(field.tint == .grey)
        #expect(try DocCArticle.textBlocks(of: DocCArticle.customControl) == [field.explain(\CodeField.tint, of: field).description])
    }

    @Test func customControlWithARejectedCode() throws {
        let states = try CodeStates()
        let codeComplete = try ControlEvents.allocate(named: "com.example.code.complete")
        let field = CodeField(length: 3, states: states, complete: codeComplete)
        var events: [ControlEvents] = []
        field.addAction(Action { action in if let event = action.event { events.append(event.events) } },
                        for: [.valueChanged, codeComplete])
        for digit in "1234" { field.insert(digit) }     // the fourth digit does not fit
        #expect(field.code == "123" && field.state == states.filled && field.tint == .red)
        #expect(events == [.valueChanged, .valueChanged, .valueChanged, codeComplete])
    }

    /// The lamp's `on` is pushed by its factor (no evaluation reads it), `off` derived.
    @Test func aFactorAndABool() throws {
        let on = try ControlState.allocate(named: "com.example.lamp.on", in: .extendedApplication)
        let off = try ControlState.allocate(named: "com.example.lamp.off", in: .extendedApplication)
        let lamp = Lamp(on: on, off: off)
        #expect(lamp.state == off)
        lamp.isOn = true
        #expect(lamp.state == on)
        #expect(lamp.registeredCustomStates == [on, off])
    }

    @Test func declarativeStatesOnAControl() throws {
        let field = CodeField(states: try CodeStates(), complete: try ControlEvents.allocate(named: "com.example.code.complete"))
        field.stateMachine.apply { $0.locked() }.instantly()   // field.isEnabled == false
        #expect(!field.isEnabled && field.state == .disabled)
        #expect(field.stateMachine.currentIdentifier == "locked()")
    }
}
