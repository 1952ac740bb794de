import ArgumentParser
import StatefulControls

/// A PIN-code control in the terminal, whose whole appearance comes from state-bound values.
@main
struct PinCodeDemo: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pincode-demo",
        abstract: "A PIN-code control in the terminal, styled entirely by state-bound values.",
        discussion: """
            Keys: digits type, Backspace deletes, c clears, d toggles disabled, h toggles the
            highlight, Enter (or s) presses Submit, q quits. Codes of one repeated digit or
            of consecutive digits (1111, 1234, 9876) are invalid.
            """)

    @Option(help: "Run these keys without a terminal and print every frame: digits, c, d, h, s, \\b (backspace), \\n (submit).")
    var script: String?

    @Flag(help: "Plain text frames, colours named instead of drawn.")
    var noColor = false

    @Flag(help: "After the script, explain why each dot looks as it does.")
    var explain = false

    @Option(help: "The number of digits.")
    var length = 4

    @Flag(help: "Print the rule lint of the demo's controls (rules that never win or never match, bindings that never change) and exit.")
    var lint = false

    func validate() throws {
        guard (1...12).contains(length) else { throw ValidationError("--length must be between 1 and 12") }
        if explain && script == nil && Terminal.isInteractive {
            throw ValidationError("--explain needs --script")
        }
        if lint && (script != nil || explain) {
            throw ValidationError("--lint prints the lint of the controls and exits: it takes no --script or --explain")
        }
    }

    func run() throws {
        try MainActor.assumeIsolated {
            let scene = DemoScene(codeLength: length)
            if lint {
                print(Self.lintReport(of: scene))
            } else if let script {
                print(try Self.runScript(script, scene: scene, colors: !noColor, explain: explain))
            } else if Terminal.isInteractive {
                Self.runInteractive(scene: scene, colors: !noColor)
            } else {
                // No terminal and no script: show a typical session instead.
                print("stdin is not a terminal: playing the script \"1357\\b\\b11c1234\" (use --script to choose)\n")
                print(try Self.runScript("1357\\b\\b11c1234", scene: scene, colors: false, explain: explain))
            }
        }
    }

    /// Runs `script` and returns every frame (and the explanation if asked).
    @MainActor
    static func runScript(_ script: String, scene: DemoScene, colors: Bool, explain: Bool) throws -> String {
        let renderer = FrameRenderer(colors: colors)
        var frames = [renderer.render(scene, title: "#0 start")]
        for (index, step) in try Key.parse(script: script).enumerated() {
            guard scene.handle(step.key) else { break }
            frames.append(renderer.render(scene, title: "#\(index + 1) key '\(step.label)'"))
        }
        if explain { frames.append(explanation(of: scene)) }
        return frames.joined(separator: "\n\n")
    }

    /// The resolver's account of each dot's appearance and of what the PIN control sets on it.
    @MainActor
    static func explanation(of scene: DemoScene) -> String {
        var sections = ["Why each dot looks as it does (PIN state [\(scene.pin.state)]):"]
        for (index, dot) in scene.pin.dots.enumerated() {
            sections.append(
                """
                dot \(index + 1), state [\(dot.state)]
                \(dot.explain(\PinDot.fillColor, of: dot))
                \(dot.explain(\PinDot.borderColor, of: dot))
                \(dot.explain(\PinDot.borderWidth, of: dot))
                set by the PIN control:
                \(scene.pin.explain(\PinDot.isValid, of: dot))
                \(scene.pin.explain(\PinDot.isInvalid, of: dot))
                """)
        }
        sections.append("The Submit button:\n\(scene.pin.explain(\Button.isEnabled, of: scene.submit))")
        return sections.joined(separator: "\n\n")
    }

    /// The rule lint of every control of the scene over its reachable states: the diagnostics
    /// of each, or that it has none.
    @MainActor
    static func lintReport(of scene: DemoScene) -> String {
        let controls: [(String, Control)] =
            [("PIN control", scene.pin)]
            + scene.pin.dots.enumerated().map { ("dot \($0.offset + 1)", $0.element) }
            + [("Submit button", scene.submit)]
        var lines = ["Rule lint of each control over its reachable states:"]
        var problems = 0
        for (name, control) in controls {
            let diagnostics = control.lintRules()
            problems += diagnostics.count
            let summary = diagnostics.isEmpty ? "no problems" : "\(diagnostics.count) problem\(diagnostics.count == 1 ? "" : "s")"
            lines.append("\(name) (\(type(of: control)), \(control.reachableStates.count) states): \(summary)")
            lines += diagnostics.map { "  - \($0)" }
        }
        lines.append("\(problems) problem\(problems == 1 ? "" : "s") in \(controls.count) controls")
        return lines.joined(separator: "\n")
    }

    @MainActor
    static func runInteractive(scene: DemoScene, colors: Bool) {
        let renderer = FrameRenderer(colors: colors)
        Terminal.enterRawMode()
        defer { Terminal.restore() }
        var title = "PIN code — digits, Backspace, c clear, d disable, h highlight, Enter submit, q quit"
        while true {
            Terminal.write("\u{1B}[H\u{1B}[2J" + renderer.render(scene, title: title).replacingNewlines() + "\r\n")
            guard let byte = Terminal.readByte(), scene.handle(Key(byte: byte)) else { return }
            title = "PIN code — last events: \(scene.log.all.suffix(3).joined(separator: ", "))"
        }
    }
}

extension String {
    /// Raw mode does not return the carriage at a newline.
    func replacingNewlines() -> String { split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\r\n") }
}
