import StatefulControls

/// Draws the scene as text, from the controls' properties alone: the renderer never looks at
/// a state, only at the values the state-bound rules wrote.
@MainActor
struct FrameRenderer {
    var colors: Bool

    /// The brackets drawn for a border width.
    private static let borders: [Double: (String, String)] = [0.5: ("(", ")"), 1: ("[", "]"), 2: ("⟦", "⟧")]

    func render(_ scene: DemoScene, title: String) -> String {
        let dots = scene.pin.dots.map(dot).joined(separator: " ")
        let details = scene.pin.dots.enumerated().map { index, dot in
            "\(index + 1): fill \(dot.fillColor), border \(dot.borderColor), width \(format(dot.borderWidth))"
        }
        let submit = paint("[ \(scene.submit.title) ]", scene.submit.titleColor)
        return [
            title,
            "  pin     \(dots)   code \(String(repeating: "*", count: scene.pin.code.count))",
            "  dots    " + details.joined(separator: " | "),
            "  submit  \(submit) \(scene.submit.isEnabled ? "enabled" : "disabled"), title \(scene.submit.titleColor)",
            "  state   \(scene.pin.state)",
            "  events  \(scene.log.frameEvents.isEmpty ? "-" : scene.log.frameEvents.joined(separator: ", "))",
        ].joined(separator: "\n")
    }

    private func dot(_ dot: PinDot) -> String {
        let (open, close) = Self.borders[dot.borderWidth] ?? ("[", "]")
        let fill = dot.fillColor.isClear ? " " : paint("●", dot.fillColor)
        return paint(open, dot.borderColor) + fill + paint(close, dot.borderColor)
    }

    private func paint(_ text: String, _ color: Color) -> String {
        guard colors, !color.isClear else { return text }
        return "\u{1B}[38;2;\(color.red);\(color.green);\(color.blue)m\(text)\u{1B}[0m"
    }

    private func format(_ width: Double) -> String {
        width == width.rounded() ? String(Int(width)) : String(width)
    }
}
