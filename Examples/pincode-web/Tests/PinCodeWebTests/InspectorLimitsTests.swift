import PinCodeScene
import PinCodeWeb
import StatefulControls
import Testing

/// A bound target of the limit tests.
final class Cell {
    var text = ""
}

/// Custom states enough to pass the inspector's limit of factors (in the extended range: the
/// application range's eight stay the scene's).
let extraStates = (0..<5).map { index in
    // The tests' own names: never taken by another holder, so allocating cannot throw.
    (try? ControlState.allocate(named: "com.example.pincode-web.tests.extra\(index)", in: .extendedApplication)) ?? []
}

/// A control with a pushed custom state for each of ``extraStates``.
@MainActor
final class ManyStates: Control {
    @StateFactor var first = false
    @StateFactor var second = false
    @StateFactor var third = false
    @StateFactor var fourth = false
    @StateFactor var fifth = false

    init() {
        super.init()
        for (state, factor) in zip(extraStates, [\ManyStates._first, \._second, \._third, \._fourth, \._fifth]) {
            register(state, for: factor)
        }
    }
}

@MainActor
@Suite("The inspector's limits: message size, transitions, states")
struct InspectorLimitsTests {
    /// An inspector of one control, naming each cell by its index.
    private func inspector(of control: Control, cells: [Cell]) throws -> Inspector {
        let names = Dictionary(uniqueKeysWithValues: cells.enumerated().map { (ObjectIdentifier($1), "cell\($0).text") })
        let inspector = Inspector(controls: [("big", control)], naming: { names[ObjectIdentifier($0.target)] ?? "?" })
        try inspector.apply(on: true, control: nil, property: nil)
        return inspector
    }

    @Test func aReportTooLargeIsShortenedToTheLimitAndSaysWhatItLeftOut() throws {
        let control = Control()
        let cells = (0..<200).map { _ in Cell() }
        let long = String(repeating: "x", count: 500)
        for cell in cells {
            for priority in 0..<20 {
                control.setValue("\(priority) \(long)", for: \.text, of: cell, when: .containing(.selected, priority: Int32(priority)))
            }
        }
        let inspector = try inspector(of: control, cells: cells)
        let report = try #require(inspector.report())
        #expect(ServerMessage.inspector(report).json.utf8.count <= Inspector.maxReportSize)
        #expect(report.note == "shortened to fit 16 KiB: left out the state table, diagnostics, properties")
        // Each binding's 19 rules under its top one never win: 16 diagnostics kept of 3,800, then 4.
        #expect(report.lint?.count == 4 && report.omittedDiagnostics == 200 * 19 - 4)
        #expect(report.lint?.first?.text.hasPrefix("containing(selected) @18 -> 18 xxx") == true)
        #expect(report.lint?.first?.text.contains("x…") == true && report.lint?.first?.text.count ?? 0 < 400)
        #expect(report.table == nil && report.tableNote == "no state table: left out to fit the message")
        #expect(!report.properties.isEmpty && report.properties.count + report.omittedProperties == 200)
        #expect(report.properties.first?.name == "cell0.text")
        // At most 16 rules per property, values shortened to 80 characters.
        let rules = try #require(report.properties.first?.rules)
        #expect(rules.count == 16 && report.properties.first?.omittedRules == 4)
        #expect(rules.first?.value == .string("19 " + String(repeating: "x", count: 76) + "…"))
        // Explained: the 32 properties within the limits, and the table's property in each of its 16 states.
        #expect(inspector.explanationCount == 32 + 16)
    }

    @Test func transitionsBetweenTwoReportsAreCapped() throws {
        let control = Control()
        let inspector = try inspector(of: control, cells: [])
        _ = inspector.report()
        for _ in 0..<40 { control.performTransition { control.isSelected.toggle() } }
        let report = try #require(inspector.report())
        #expect(report.transitions.count == 32 && report.omittedTransitions == 80 - 32)
        #expect(report.transitionLines.last == "big committed 1 [normal]")
        // Taken by the report: the next has none.
        control.isFocused = true
        #expect(inspector.report()?.transitions == [])
    }

    @Test func aControlWithTooManyStatesGetsNoLintAndNoTable() throws {
        let control = ManyStates()
        let cell = Cell()
        control.setValue("first", for: \.text, of: cell, when: .containing(extraStates[0]))
        let inspector = try inspector(of: control, cells: [cell])
        let report = try #require(inspector.report())
        let reason = "the control has 2^9 reachable states, more than the inspector's 2^8"
        #expect(report.lint == nil && report.lintNote == "no lint: \(reason)" && inspector.lintCount == 0)
        #expect(report.table == nil && report.tableNote == "no state table: \(reason)")
        #expect(inspector.explanationCount == 1 && report.bits.count == 1 + 4 + 5)
        control.first = true
        #expect(inspector.report()?.properties.first?.value == .string("first"))
    }

    @Test func anInspectorWithoutControlsIsAMistake() async {
        await #expect(processExitsWith: .failure) {
            await MainActor.run { _ = Inspector(controls: [], naming: { _ in "" }) }
        }
    }
}
