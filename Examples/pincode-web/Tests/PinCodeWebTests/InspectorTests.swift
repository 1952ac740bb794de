import PinCodeScene
import PinCodeWeb
import StatefulControls
import Testing

extension Page {
    /// Sends an `inspect` message.
    mutating func inspect(_ on: Bool = true, control: String? = nil, property: String? = nil) throws {
        var fields = [#""type":"inspect""#, #""on":\#(on)"#]
        if let control { fields.append(#""control":"\#(control)""#) }
        if let property { fields.append(#""property":"\#(property)""#) }
        try send("{" + fields.joined(separator: ",") + "}")
    }

    /// The last report received.
    var report: InspectorReport {
        get throws { try #require(reports.last) }
    }
}

extension InspectorReport {
    func property(_ name: String) throws -> Property { try #require(properties.first { $0.name == name }) }
    /// The descriptors of a property's rules with each status.
    func rules(of name: String, _ status: Status) throws -> [String] {
        try property(name).rules.filter { $0.status == status }.map(\.descriptor)
    }
    func on(_ control: String) -> [String]? { controls.first { $0.id == control }?.on }
    func changed(_ control: String) -> [String]? { controls.first { $0.id == control }?.changed }
    /// `control change depth [state]` for each transition.
    var transitionLines: [String] { transitions.map { "\($0.control) \($0.change) \($0.depth) [\($0.state)]" } }
    var bitsOn: [String] { bits.filter(\.on).map(\.name) }
    var bitsChanged: [String] { bits.filter(\.changed).map(\.name) }
}

let valid = "org.statefulcontrols.valid", filled = "org.statefulcontrols.filled", submitted = "com.example.pincode-web.submitted"

@MainActor
@Suite("The inspector: what each step sends, its limits, and off computes nothing")
struct InspectorTests {
    @Test func offByDefaultItComputesAndSendsNothing() throws {
        var page = Page()
        let inspector = page.session.inspector
        #expect(!inspector.isOn)
        try page.tap("pin")
        try page.type("1357")
        try page.tap("submit")
        try page.tap("visit")
        #expect(page.reports.isEmpty && inspector.explanationCount == 0 && inspector.lintCount == 0)

        try page.inspect()
        #expect(page.replies == ["inspector"] && inspector.explanationCount > 0 && inspector.lintCount == 1)
        let (explanations, lints, reports) = (inspector.explanationCount, inspector.lintCount, page.reports.count)
        try page.inspect(false)
        #expect(page.replies.isEmpty && !inspector.isOn)
        // Off again: typing, tapping and choosing what to inspect compute nothing and send no report.
        try page.tap("pin")
        try page.send(#"{"type":"deleteBackward"}"#)
        #expect(page.replies == ["update"])
        try page.type("2")
        try page.inspect(false, control: "submit", property: "submit.title")
        #expect(page.replies.isEmpty && inspector.selected == "submit" && inspector.tableProperty == "submit.title")
        #expect(inspector.explanationCount == explanations && inspector.lintCount == lints && page.reports.count == reports)

        // Transitions that happened while off are not reported once on again.
        try page.inspect(control: "pin")
        #expect(try page.report.transitions.isEmpty && page.report.selected == "pin")
    }

    @Test func eachStepSendsItsUpdateThenWhatTheInspectorShowsNow() throws {
        var page = Page()
        try page.inspect(control: "pin.dots.0")
        #expect(page.replies == ["inspector"])
        var report = try page.report
        #expect(report.selected == "pin.dots.0")
        #expect(report.controls.map(\.id) == ["pin", "pin.dots.0", "pin.dots.1", "pin.dots.2", "pin.dots.3", "submit", "visit", "notes"])
        #expect(
            report.bits.map(\.name) == ["normal", "highlighted", "disabled", "selected", "focused", valid, "org.statefulcontrols.invalid"])
        #expect(report.bits.map(\.range) == ["built-in", "built-in", "built-in", "built-in", "built-in", "library", "library"])
        #expect(report.bitsOn == ["normal"] && report.bitsChanged.isEmpty && report.transitions.isEmpty)
        #expect(report.properties.map(\.name) == ["pin.dots.0.fillColor", "pin.dots.0.borderColor", "pin.dots.0.borderWidth"])
        var fill = try report.property("pin.dots.0.fillColor")
        #expect(fill.defaultApplies && fill.value == .color(.clear) && fill.rules.allSatisfy { $0.status == .unmatched })
        #expect(fill.rules.map(\.priority) == [1000, 999, 998, 997, 996])

        // A press highlights the PIN, and so its dots: the bits that changed are marked.
        try page.pointer("pin", "down", 20)
        #expect(page.replies == ["update", "inspector"])
        report = try page.report
        #expect(report.on("pin") == ["highlighted"] && report.changed("pin") == ["highlighted", "normal"])
        #expect(report.on("submit") == ["disabled"] && report.changed("submit") == [])
        #expect(report.bitsOn == ["highlighted"] && report.bitsChanged == ["normal", "highlighted"])
        #expect(try report.rules(of: "pin.dots.0.borderColor", .winner) == ["containing(highlighted) @997"])
        // Released, it has the focus: its dots stay highlighted (nothing changed for them).
        try page.pointer("pin", "up", 20)
        report = try page.report
        #expect(report.on("pin") == ["focused"] && report.changed("pin") == ["focused", "highlighted"])
        #expect(report.bitsOn == ["highlighted"] && report.bitsChanged.isEmpty)

        // A digit: the PIN's transition; dot 0 is selected, and blue beats white.
        try page.type("1")
        #expect(page.replies == ["update", "inspector"])
        report = try page.report
        #expect(report.transitionLines == ["pin began 1 [focused]", "pin committed 1 [focused]"])
        #expect(report.bitsOn == ["highlighted", "selected"] && report.bitsChanged == ["selected"])
        fill = try report.property("pin.dots.0.fillColor")
        #expect(fill.value == .color(.blue) && !fill.defaultApplies && fill.reason == "the highest priority of 2 matching rules")
        #expect(try report.rules(of: fill.name, .winner) == ["containing(highlighted | selected) @997"])
        #expect(try report.rules(of: fill.name, .loses) == ["containing(selected) @996"])

        // A step that changes nothing sends nothing.
        try page.pointer("visit", "move", 1, 1)
        #expect(page.replies.isEmpty)

        // The rest of a valid code: green beats blue and white; the PIN's library states are on.
        try page.type("357")
        report = try page.report
        #expect(report.on("pin") == ["focused", filled, valid] && report.changed("pin") == [filled, valid])
        #expect(report.bitsOn == ["highlighted", "selected", valid] && report.bitsChanged == [valid])
        #expect(try report.rules(of: fill.name, .winner) == ["containing(selected | \(valid)) @999"])
        #expect(try report.rules(of: fill.name, .loses) == ["containing(highlighted | selected) @997", "containing(selected) @996"])
        #expect(try report.property(fill.name).value == .color(.green) && report.transitions.map(\.change) == ["began", "committed"])
        #expect(report.transitions.last?.state == "focused | \(filled) | \(valid)")
        // The PIN's lint: its rules all take effect somewhere.
        try page.inspect(control: "pin")
        #expect(try page.report.lint == [] && page.report.properties.count == 4 * 4 + 1)
    }

    @Test func theSelectedControlsLintAndStateTables() throws {
        var page = Page()
        try page.inspect(control: "submit")
        var report = try page.report
        // The rule the scene gets wrong on purpose: matches once submitted, never wins.
        let diagnostic = try #require(report.lint?.first)
        #expect(report.lint?.count == 1 && diagnostic.problem == "shadowed" && diagnostic.property == "submit.titleColor")
        #expect(diagnostic.descriptor == "containing(\(submitted)) @400" && diagnostic.value == "blue")
        #expect(
            diagnostic.beatenBy.map(\.descriptor) == [
                "containing(highlighted) @999", "containing(disabled) @999", "containingNone(disabled) @500",
            ])
        #expect(diagnostic.beatenBy.map(\.value) == ["darkGrey", "grey", "green"])
        #expect(diagnostic.beatenBy[2].states == [submitted, "selected | \(submitted)", "focused | \(submitted)"])
        #expect(diagnostic.beatenBy[2].moreStates == 1 && diagnostic.text.hasPrefix("containing(\(submitted)) @400 -> blue never wins"))

        // The first property's table: a row per combination of the app state, a column per built-in one.
        var table = try #require(report.table)
        #expect(table.property == "submit.titleColor" && table.rowBits == [submitted])
        #expect(table.columnBits == ["highlighted", "disabled", "selected", "focused"] && table.cells.map(\.count) == [16, 16])
        for row in 0..<2 {
            for column in 0..<16 {
                // Highlighted: dark grey (over grey, tied at 999 and set later); disabled: grey; else green.
                let expected: Color = column & 1 != 0 ? .darkGrey : column & 2 != 0 ? .grey : .green
                #expect(table.winners[table.cells[row][column]].value == .color(expected), "row \(row), column \(column)")
            }
        }
        #expect(table.applied == [0, 2])  // disabled, not submitted

        // Another property's table.
        try page.inspect(property: "submit.title")
        table = try #require(page.report.table)
        #expect(table.property == "submit.title" && table.winners.map(\.descriptor) == [nil, "containing(\(submitted)) @999"])
        #expect(table.cells[0].allSatisfy { $0 == 0 } && table.cells[1].allSatisfy { $0 == 1 })

        // Submitted: the app state is on, the title changes, and blue matches but loses.
        try page.tap("pin")
        try page.type("1357")
        try page.tap("submit")
        report = try page.report
        #expect(report.on("submit") == [submitted] && report.changed("submit") == [submitted, "highlighted"])
        let bit = try #require(report.bits.last)
        #expect(bit.name == submitted && bit.bit == "0x10000" && bit.range == "application" && bit.on && bit.changed)
        #expect(try report.property("submit.title").value == .string("Submit again"))
        #expect(try report.rules(of: "submit.titleColor", .loses) == ["containing(\(submitted)) @400"])
        #expect(try report.rules(of: "submit.titleColor", .winner) == ["containingNone(disabled) @500"])
        #expect(report.table?.applied == [1, 0] && report.table?.property == "submit.title")
    }

    @Test(arguments: [
        (#"{"type":"inspect"}"#, #"inspect: "on" must be true or false"#),
        (#"{"type":"inspect","on":"yes"}"#, #"inspect: "on" must be true or false"#),
        (#"{"type":"inspect","on":1}"#, #"inspect: "on" must be true or false"#),
        (#"{"type":"inspect","on":true,"control":5}"#, #"inspect: "control" must be a control's id"#),
        (
            #"{"type":"inspect","on":true,"control":"slider"}"#,
            #"inspect: unknown control "slider" (pin, pin.dots.0, pin.dots.1, pin.dots.2, pin.dots.3, submit, visit, notes)"#
        ),
        (
            #"{"type":"inspect","on":true,"control":"notes","property":"notes.text"}"#,
            #"inspect: "notes.text" is not bound through "notes" (it binds nothing)"#
        ),
        (
            #"{"type":"inspect","on":true,"property":"submit.title"}"#,
            #"inspect: "submit.title" is not bound through "pin.dots.1" (pin.dots.1.fillColor, pin.dots.1.borderColor, pin.dots.1.borderWidth)"#
        ),
        (
            #"{"type":"inspect","on":false,"control":"submit","property":"pin.dots.1.fillColor"}"#,
            #"inspect: "pin.dots.1.fillColor" is not bound through "submit" (submit.titleColor, submit.title)"#
        ),
    ])
    func aBadInspectMessageGetsAnErrorAndChangesNothing(json: String, error: String) throws {
        var page = Page()
        try page.inspect(control: "pin.dots.1", property: "pin.dots.1.borderColor")
        let inspector = page.session.inspector
        let before = (inspector.explanationCount, inspector.lintCount, page.reports.count)
        #expect(throws: PageError(message: error)) { try page.send(json) }
        #expect(inspector.isOn && inspector.selected == "pin.dots.1" && inspector.tableProperty == "pin.dots.1.borderColor")
        #expect((inspector.explanationCount, inspector.lintCount, page.reports.count) == before)
        // Nothing was lost: the next step reports as before.
        try page.tap("pin")
        #expect(try page.report.selected == "pin.dots.1" && page.report.table?.property == "pin.dots.1.borderColor")
    }

    @Test func everyReportOfTheSceneFitsItsLimitUnshortened() throws {
        var page = Page()
        try page.inspect()
        try page.tap("pin")
        for id in page.session.scene.inspectable.map(\.id) {
            try page.inspect(control: id)
            try page.type(id == "pin.dots.2" ? "1111" : "1")
            try page.send(#"{"type":"deleteBackward"}"#)
        }
        #expect(page.reports.count > 16)
        for report in page.reports {
            #expect(ServerMessage.inspector(report).json.utf8.count <= Inspector.maxReportSize)
            #expect(report.note == nil && report.omittedProperties == 0 && report.properties.allSatisfy { $0.omittedRules == 0 })
        }
    }
}
