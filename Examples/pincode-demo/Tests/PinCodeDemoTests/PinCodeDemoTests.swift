import Testing
import StatefulControls
@testable import pincode_demo

@MainActor
@Suite("pincode-demo: scripted frames")
struct PinCodeDemoTests {
    func frames(_ script: String, explain: Bool = false, colors: Bool = false) throws -> [String] {
        try PinCodeDemo.runScript(script, scene: DemoScene(), colors: colors, explain: explain)
            .components(separatedBy: "\n\n")
    }

    func line(_ frame: String, _ label: String) -> String {
        frame.split(separator: "\n").first { $0.hasPrefix("  \(label)") }.map(String.init) ?? ""
    }

    @Test func aValidCodeTurnsTheDotsGreenAndEnablesSubmit() throws {
        let frames = try frames("1357")
        #expect(frames.count == 5)
        #expect(line(frames[2], "dots").hasPrefix("  dots    1: fill white, border grey, width 1 | 2: fill white"))
        #expect(line(frames[3], "submit") == "  submit  [ Submit ] disabled, title grey")
        let last = frames[4]
        #expect(line(last, "dots") == "  dots    " + (1...4).map { "\($0): fill green, border green, width 1" }.joined(separator: " | "))
        #expect(line(last, "submit") == "  submit  [ Submit ] enabled, title green")
        #expect(line(last, "state") == "  state   org.statefulcontrols.filled | org.statefulcontrols.valid")
        #expect(line(last, "events") == "  events  valueChanged from PinCodeControl, typeComplete from PinCodeControl")
        #expect(line(last, "pin").hasPrefix("  pin     [●] [●] [●] [●]"))
    }

    @Test func anInvalidCodeIsRedAndKeepsSubmitDisabled() throws {
        let last = try frames("1234").last!
        #expect(line(last, "dots").contains("1: fill red, border red, width 2"))
        #expect(line(last, "pin").hasPrefix("  pin     ⟦●⟧ ⟦●⟧ ⟦●⟧ ⟦●⟧"))
        #expect(line(last, "submit") == "  submit  [ Submit ] disabled, title grey")
        #expect(line(last, "state") == "  state   org.statefulcontrols.filled | org.statefulcontrols.invalid")
    }

    @Test func backspaceClearDisableAndHighlight() throws {
        let frames = try frames("12\\b3hdc")
        #expect(line(frames[3], "pin").hasPrefix("  pin     [●] [ ] [ ] [ ]"))  // after \b
        #expect(line(frames[5], "state") == "  state   highlighted")
        #expect(line(frames[5], "dots").hasPrefix("  dots    1: fill blue, border blue, width 2"))
        #expect(line(frames[6], "state") == "  state   highlighted | disabled")
        #expect(line(frames[6], "dots").hasPrefix("  dots    1: fill grey, border darkGrey, width 0.5"))
        #expect(line(frames[6], "pin").hasPrefix("  pin     (●) (●) ( ) ( )"))
        #expect(line(frames[7], "pin").hasPrefix("  pin     (●) (●) ( ) ( )"))  // disabled: clear ignored
        #expect(line(frames[7], "events") == "  events  -")
    }

    @Test func submitSendsItsPrimaryAction() throws {
        let last = try frames("1357\\n").last!
        #expect(line(last, "events") == "  events  primaryActionTriggered from Button")
    }

    @Test func quitStopsTheScript() throws {
        #expect(try frames("12q34").count == 3)
    }

    @Test func explainSaysWhyEachDotLooksAsItDoes() throws {
        let text = try frames("1234", explain: true).dropFirst(5).joined(separator: "\n\n")
        #expect(text.contains("Why each dot looks as it does (PIN state [org.statefulcontrols.filled | org.statefulcontrols.invalid])"))
        #expect(text.contains("dot 1, state [selected | org.statefulcontrols.invalid]"))
        #expect(text.contains("winner: containing(selected | org.statefulcontrols.invalid) @998 -> red"))
        #expect(text.contains("does not match containing(selected | org.statefulcontrols.valid) @999 -> green"))
        #expect(text.contains("The Submit button:"))
    }

    @Test func lintFindsNoProblemInTheDemosControls() throws {
        let scene = DemoScene()
        let controls: [Control] = [scene.pin, scene.submit] + scene.pin.dots
        #expect(controls.map { $0.lintRules() } == Array(repeating: [], count: 6))
        let report = PinCodeDemo.lintReport(of: scene).split(separator: "\n")
        #expect(report.count == 8)
        #expect(report[1] == "PIN control (PinCodeControl, 128 states): no problems")
        #expect(report[2] == "dot 1 (PinDot, 64 states): no problems")
        #expect(report[6] == "Submit button (Button, 16 states): no problems")
        #expect(report[7] == "0 problems in 6 controls")
    }

    @Test func lintIsAFlagThatTakesNoScript() throws {
        #expect(try PinCodeDemo.parse(["--lint"]).lint)
        #expect(try !PinCodeDemo.parse([]).lint)
        #expect(throws: (any Error).self) { try PinCodeDemo.parse(["--lint", "--script", "12"]) }
    }

    @Test func colorsAreANSISequencesOfTheBoundColors() throws {
        let last = try frames("1357", colors: true).last!
        #expect(last.contains("\u{1B}[38;2;48;209;88m●"))  // green fill
    }

    @Test func scriptErrorsAreClear() {
        #expect(throws: ScriptError.self) { try Key.parse(script: "12\\") }
        let error = #expect(throws: ScriptError.self) { try Key.parse(script: "\\x") }
        #expect(error?.description == "unknown escape \\x in script (use \\b, \\n or \\\\)")
    }

    @Test func keysFromBytes() {
        #expect(Key(byte: UInt8(ascii: "7")) == .digit(7))
        #expect(Key(byte: 0x7F) == .backspace)
        #expect(Key(byte: UInt8(ascii: "q")) == .quit)
        #expect(Key(byte: UInt8(ascii: "x")) == .ignored)
    }
}
