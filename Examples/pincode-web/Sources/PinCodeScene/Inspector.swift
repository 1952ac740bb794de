// A page's state inspector: on or off, what it shows, and its reports, made from the library's
// explain, lint and transition observation only while it is on.

import StatefulControls

/// The state inspector of one page: every control's state bits and, for the selected control,
/// its bound properties with their rules (``Control/explain(_:in:)``), its lint report
/// (``Control/lintRules()``), the state table of one property and the transitions as they
/// happen (``Control/observeTransitions(_:)``).
///
/// Off by default. While it is off it explains nothing, lints nothing and observes no
/// transition (``explanationCount`` and ``lintCount`` stay as they are); turned on, it reports
/// after each message of the page, and only when something it shows changed.
@MainActor
public final class Inspector {
    /// How much one report shows at most; past these, it counts what it left out.
    public struct Limits: Equatable, Sendable {
        /// Bound properties explained.
        public var properties = 32
        /// Rules listed per property.
        public var rulesPerProperty = 16
        /// Lint diagnostics.
        public var diagnostics = 16
        /// Transitions kept between two reports.
        public var transitions = 32
        /// Characters of a value's description.
        public var valueLength = 80
        /// The lint and the state table run over the control's reachable states: 2^(4 + its
        /// custom states). Past this many factors (256 states), neither is made.
        public var factors = 8

        /// The limits the page gets.
        public init() {}
    }

    /// The largest report, in bytes of its JSON text frame: the default frame size of the
    /// WebSocket implementations here (a larger report is shortened, and says what it left out).
    public nonisolated static let maxReportSize = 16_384

    /// What one report shows at most.
    public let limits: Limits
    /// Whether the inspector is on.
    public private(set) var isOn = false
    /// The id of the control whose details are shown.
    public var selected: String { controls[selectedIndex].id }
    /// The property whose state table is shown; nil for the selected control's first.
    public private(set) var tableProperty: String?
    /// The explanations made so far (one per property and per state of a state table).
    public private(set) var explanationCount = 0
    /// The lint reports made so far.
    public private(set) var lintCount = 0

    private let controls: [(id: String, control: Control)]
    private let name: (BoundProperty) -> String
    private var selectedIndex = 0
    private var observers: [TransitionObserver] = []
    private var transitions: [InspectorReport.TransitionRecord] = []
    private var droppedTransitions = 0
    /// The last report sent since the inspector was turned on, without its transitions and
    /// change marks: what the page shows.
    private var shown: InspectorReport?
    /// Whether the next report is sent even if it shows what the page has (turned on, or
    /// another control or property chosen).
    private var isDue = false

    /// An inspector of `controls` (each with the id the page shows), naming bound properties
    /// with `name`. The first control is selected.
    public init(controls: [(id: String, control: Control)], naming name: @escaping (BoundProperty) -> String, limits: Limits = Limits()) {
        precondition(!controls.isEmpty, "Inspector(controls:naming:): nothing to inspect; pass at least one control")
        self.controls = controls
        self.name = name
        self.limits = limits
    }

    /// Applies an `inspect` message: turns the inspector on or off and, when given, selects a
    /// control and the property of its state table. Throws, changing nothing, for an unknown
    /// control or a property not bound through the selected control.
    public func apply(on: Bool, control id: String?, property: String?) throws(MessageError) {
        let index = try self.index(of: id ?? selected)
        let control = controls[index].control
        if let property {
            let names = control.boundProperties.map(name)
            guard names.contains(property) else {
                let listed = names.isEmpty ? "it binds nothing" : Self.list(names, limit: 8)
                throw MessageError("inspect: \"\(property)\" is not bound through \"\(id ?? selected)\" (\(listed))")
            }
        }
        if index != selectedIndex { (selectedIndex, tableProperty, isDue) = (index, nil, true) }
        if let property, property != tableProperty { (tableProperty, isDue) = (property, true) }
        guard on != isOn else { return }
        (isOn, isDue, shown) = (on, true, nil)
        if on {
            observers = controls.map { id, control in
                control.observeTransitions { [weak self, weak control] change in
                    guard let self, let control else { return }
                    record(
                        InspectorReport.TransitionRecord(
                            control: id, change: "\(change.kind)", depth: change.depth, state: "\(control.appliedState)"))
                }
            }
        } else {
            observers.forEach { $0.cancel() }
            (observers, transitions, droppedTransitions) = ([], [], 0)
        }
    }

    private func index(of id: String) throws(MessageError) -> Int {
        guard let index = controls.firstIndex(where: { $0.id == id }) else {
            throw MessageError("inspect: unknown control \"\(id)\" (\(Self.list(controls.map(\.id), limit: 12)))")
        }
        return index
    }

    private func record(_ transition: InspectorReport.TransitionRecord) {
        transitions.append(transition)
        if transitions.count > limits.transitions {
            transitions.removeFirst()
            droppedTransitions += 1
        }
    }

    /// The report due after a message: nil while off, and when nothing it shows changed and no
    /// transition happened since the last one. At most ``maxReportSize`` bytes as JSON.
    public func report() -> InspectorReport? {
        guard isOn else { return nil }
        let control = controls[selectedIndex].control
        let properties = control.boundProperties
        var report = InspectorReport(
            controls: controls.map { summary(of: $0.control, id: $0.id) }, selected: selected, bits: bits(of: control),
            properties: properties.prefix(limits.properties).map { explained($0, of: control) },
            omittedProperties: max(0, properties.count - limits.properties), lint: nil, omittedDiagnostics: 0, lintNote: nil,
            table: nil, tableNote: nil, transitions: transitions, omittedTransitions: droppedTransitions, note: nil)
        let factors = 4 + control.registeredCustomStates.count
        if factors > limits.factors {
            let reason = "the control has 2^\(factors) reachable states, more than the inspector's 2^\(limits.factors)"
            (report.lintNote, report.tableNote) = ("no lint: \(reason)", "no state table: \(reason)")
        } else {
            lint(control, properties, into: &report)
            tabulate(control, properties, into: &report)
        }
        if properties.isEmpty { report.tableNote = "no state table: nothing is bound through \(selected)" }
        (transitions, droppedTransitions) = ([], 0)

        // Unchanged, and no transition: nothing to send.
        var content = report
        (content.transitions, content.omittedTransitions) = ([], 0)
        if content == shown, report.transitions.isEmpty, report.omittedTransitions == 0, !isDue { return nil }
        // The bits that turned on or off since the page's last report.
        for index in report.controls.indices {
            let before = Set(shown?.controls.first { $0.id == report.controls[index].id }?.on ?? report.controls[index].on)
            let changed = before.symmetricDifference(report.controls[index].on)
            report.controls[index].changed = report.controls[index].on.filter(changed.contains) + before.filter(changed.contains).sorted()
            if report.controls[index].id == selected {
                for bit in report.bits.indices { report.bits[bit].changed = changed.contains(report.bits[bit].name) }
            }
        }
        (shown, isDue) = (content, false)
        return fitted(report)
    }

    // MARK: The parts of a report

    private func summary(of control: Control, id: String) -> InspectorReport.ControlSummary {
        let applied = control.appliedState
        let states: [ControlState] = [.highlighted, .disabled, .selected, .focused] + control.registeredCustomStates
        var on = states.filter { applied.isSuperset(of: $0) }.map { "\($0)" }
        let rest = states.reduce(applied) { $0.subtracting($1) }
        if !rest.isEmpty { on.append("\(rest)") }  // a bit no registration explains (none in this scene)
        return InspectorReport.ControlSummary(id: id, on: applied.isEmpty ? ["normal"] : on, changed: [])
    }

    /// Every bit `control`'s state can have, and whether its applied state has it.
    private func bits(of control: Control) -> [InspectorReport.Bit] {
        let applied = control.appliedState
        let builtIn: ControlState = [.highlighted, .disabled, .selected, .focused]
        let states: [ControlState] = [.highlighted, .disabled, .selected, .focused] + control.registeredCustomStates
        return [InspectorReport.Bit(name: "normal", bit: "0x0", range: "built-in", on: applied.isEmpty, changed: false)]
            + states.map { state in
                InspectorReport.Bit(
                    name: "\(state)", bit: "0x" + String(state.rawValue, radix: 16, uppercase: true),
                    range: builtIn.isSuperset(of: state) ? "built-in" : state.isCustom ? "application" : "library",
                    on: applied.isSuperset(of: state), changed: false)
            }
    }

    private func explained(_ property: BoundProperty, of control: Control) -> InspectorReport.Property {
        explanationCount += 1
        let explanation = control.explain(property)!  // listed by the control: bound through it
        let winner = explanation.candidates.firstIndex(where: \.matches)
        let rules = explanation.candidates.enumerated().map { index, candidate in
            InspectorReport.Rule(
                descriptor: "\(candidate.descriptor)", priority: Int(candidate.descriptor.priority), value: value(candidate.value),
                status: index == winner ? .winner : candidate.matches ? .loses : .unmatched)
        }
        return InspectorReport.Property(
            name: name(property), value: value(explanation.value as Any), defaultValue: value(explanation.defaultValue as Any),
            defaultApplies: winner == nil, rules: Array(rules.prefix(limits.rulesPerProperty)),
            omittedRules: max(0, rules.count - limits.rulesPerProperty), reason: Self.reason(explanation))
    }

    /// Why the explained value wins, in a few words.
    private static func reason(_ explanation: StateExplanation<Any>) -> String {
        let matching = explanation.candidates.filter(\.matches)
        guard let winner = matching.first else {
            return explanation.candidates.isEmpty ? "no rules" : "no rule matches: the default applies"
        }
        if matching.count == 1 { return "the only matching rule" }
        if matching[1].descriptor.priority == winner.descriptor.priority {
            return "tied at priority \(winner.descriptor.priority) with \(matching[1].descriptor), and set more recently"
        }
        return "the highest priority of \(matching.count) matching rules"
    }

    private func lint(_ control: Control, _ properties: [BoundProperty], into report: inout InspectorReport) {
        lintCount += 1
        let diagnostics = control.lintRules()
        // A diagnostic names its binding by target and described key path.
        var names: [String: String] = [:]
        for property in properties { names["\(ObjectIdentifier(property.target)) \(property.keyPath)"] = name(property) }
        report.lint = diagnostics.prefix(limits.diagnostics).map { diagnostic in
            let property = names["\(diagnostic.targetIdentifier) \(diagnostic.keyPath)"] ?? "\(diagnostic.target) \(diagnostic.keyPath)"
            return Self.diagnostic(diagnostic, property: property, valueLength: limits.valueLength)
        }
        report.omittedDiagnostics = max(0, diagnostics.count - limits.diagnostics)
    }

    private static func diagnostic(_ diagnostic: RuleDiagnostic, property: String, valueLength: Int) -> InspectorReport.Diagnostic {
        let value = truncated(diagnostic.value, valueLength)
        let rule = diagnostic.descriptor.map { "\($0) -> \(value)" } ?? value
        let (problem, beatenBy, text): (String, [InspectorReport.Shadowing], String)
        switch diagnostic.problem {
        case .shadowed(let shadowings):
            beatenBy = shadowings.map {
                InspectorReport.Shadowing(
                    descriptor: "\($0.descriptor)", value: truncated($0.value, valueLength), states: $0.states.prefix(3).map { "\($0)" },
                    moreStates: max(0, $0.states.count - 3))
            }
            let winners = beatenBy.map { "\($0.descriptor) -> \($0.value) wins in [\($0.states.joined(separator: "], ["))]" }
            (problem, text) = ("shadowed", "\(rule) never wins: where it matches, \(winners.joined(separator: "; "))")
        case .neverMatches:
            (problem, beatenBy, text) = ("neverMatches", [], "\(rule) matches no reachable state")
        case .alwaysDefault:
            (problem, beatenBy, text) = ("alwaysDefault", [], "every reachable state resolves to the default \(value)")
        case .neverChanges:
            (problem, beatenBy, text) = ("neverChanges", [], "every reachable state resolves to \(value): the binding never changes it")
        }
        return InspectorReport.Diagnostic(
            problem: problem, property: property, descriptor: diagnostic.descriptor.map { "\($0)" },
            value: value, beatenBy: beatenBy, text: text)
    }

    /// The state table of ``tableProperty`` (or the first property): one explanation per
    /// reachable state.
    private func tabulate(_ control: Control, _ properties: [BoundProperty], into report: inout InspectorReport) {
        guard let property = properties.first(where: { tableProperty == nil || name($0) == tableProperty }) else { return }
        let builtIn: [ControlState] = [.highlighted, .disabled, .selected, .focused]
        let custom = control.registeredCustomStates
        func number(_ state: ControlState, _ bits: [ControlState]) -> Int {
            bits.indices.reduce(0) { $0 | (state.isSuperset(of: bits[$1]) ? 1 << $1 : 0) }
        }
        var winners: [InspectorReport.StateTable.Winner] = []
        var indices: [UInt64?: Int] = [:]  // by the winning rule's sequence; nil: the default
        var cells = [[Int]](repeating: [Int](repeating: -1, count: 1 << builtIn.count), count: 1 << custom.count)
        for state in control.reachableStates {
            explanationCount += 1
            let explanation = control.explain(property, in: state)!
            let winner = explanation.winner
            let index =
                indices[winner?.sequence]
                ?? {
                    winners.append(.init(descriptor: winner.map { "\($0.descriptor)" }, value: value(explanation.value as Any)))
                    indices[winner?.sequence] = winners.count - 1
                    return winners.count - 1
                }()
            cells[number(state, custom)][number(state, builtIn)] = index
        }
        let applied = control.appliedState
        report.table = InspectorReport.StateTable(
            property: name(property), columnBits: builtIn.map { "\($0)" }, rowBits: custom.map { "\($0)" }, winners: winners, cells: cells,
            applied: [number(applied, custom), number(applied, builtIn)])
    }

    // MARK: Values and size

    /// A bound value as the page shows it: booleans, finite numbers, strings and colours as
    /// themselves, anything else described; long strings shortened.
    private func value(_ value: Any) -> PropertyValue {
        switch value {
        case let value as Bool: .bool(value)
        case let value as Double where value.isFinite: .number(value)
        case let value as Int: .number(Double(value))
        case let value as Color: .color(value)
        case let value as String: .string(Self.truncated(value, limits.valueLength))
        default: .string(Self.truncated(String(describing: value), limits.valueLength))
        }
    }

    private static func truncated(_ text: String, _ length: Int) -> String {
        text.count <= length ? text : text.prefix(max(0, length - 1)) + "…"
    }

    private static func list(_ names: [String], limit: Int) -> String {
        names.count <= limit
            ? names.joined(separator: ", ") : names.prefix(limit).joined(separator: ", ") + " and \(names.count - limit) more"
    }

    /// The report, shortened until its message fits ``maxReportSize``: the state table goes
    /// first, then half the diagnostics at a time down to 4, half the properties down to 1, the
    /// rest of both, and the transitions.
    private func fitted(_ report: InspectorReport) -> InspectorReport {
        var report = report
        var leftOut: [String] = []
        func fits() -> Bool { ServerMessage.inspector(report).json.utf8.count <= Self.maxReportSize }
        func leave(_ part: String) { if !leftOut.contains(part) { leftOut.append(part) } }
        if !fits(), report.table != nil {
            (report.table, report.tableNote) = (nil, "no state table: left out to fit the message")
            leave("the state table")
        }
        for floor in [(diagnostics: 4, properties: 1), (diagnostics: 0, properties: 0)] {
            while !fits(), let lint = report.lint, lint.count > floor.diagnostics {
                let kept = max(floor.diagnostics, lint.count / 2)
                report.omittedDiagnostics += lint.count - kept
                report.lint!.removeLast(lint.count - kept)
                leave("diagnostics")
            }
            while !fits(), report.properties.count > floor.properties {
                let kept = max(floor.properties, report.properties.count / 2)
                report.omittedProperties += report.properties.count - kept
                report.properties.removeLast(report.properties.count - kept)
                leave("properties")
            }
        }
        if !fits(), !report.transitions.isEmpty {
            report.omittedTransitions += report.transitions.count
            report.transitions = []
            leave("transitions")
        }
        if !leftOut.isEmpty {
            report.note = "shortened to fit \(Self.maxReportSize / 1024) KiB: left out \(leftOut.joined(separator: ", "))"
        }
        return report
    }
}
