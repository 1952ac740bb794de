// The inspector panel's message: what it draws of the controls' states, rules, lint and state
// table, as the page receives it.

import StatefulControls

/// What the inspector panel draws, sent as `{"type": "inspector", "inspector": {…}}`: the state
/// bits of every control, and for the selected control every bit it can have, its bound
/// properties with their rules,
/// its lint report and the state table of one property; with the transitions since the last
/// report. Made by ``Inspector/report()``.
public struct InspectorReport: Equatable, Sendable, Encodable {
    /// One bit the selected control's state can have.
    public struct Bit: Equatable, Sendable, Encodable {
        /// `normal` (no bit), `highlighted`, … or a custom state's name
        /// (`org.statefulcontrols.filled`, `com.example.pincode-web.submitted`).
        public let name: String
        /// The bit in hexadecimal (`0x1`, `0x2000000`); `0x0` for normal.
        public let bit: String
        /// `built-in`, `library` (the reserved range `0xFF000000`) or `application` (the
        /// application ranges).
        public let range: String
        /// Whether the control's applied state has it (for normal: has no bit).
        public let on: Bool
        /// Whether it turned on or off since the previous report.
        public var changed: Bool
    }

    /// A control's applied state, by the names of its bits.
    public struct ControlSummary: Equatable, Sendable, Encodable {
        /// The control's id: `pin`, `pin.dots.0`, `submit`, `visit`, `notes`.
        public let id: String
        /// The names of the bits its applied state has (`["normal"]` for none), as the
        /// library describes them, lowest bit first.
        public let on: [String]
        /// The names of the bits that turned on or off since the previous report.
        public var changed: [String]
    }

    /// How a rule fares in the applied state.
    public enum Status: String, Equatable, Sendable, Encodable {
        /// It matches and wins: its value is the property's.
        case winner
        /// It matches but a rule before it in resolution order wins.
        case loses
        /// It does not match.
        case unmatched
    }

    /// A rule bound to a property.
    public struct Rule: Equatable, Sendable, Encodable {
        /// The state descriptor as written: `containing(selected | focused) @999`.
        public let descriptor: String
        /// The descriptor's priority.
        public let priority: Int
        /// The value it binds.
        public let value: PropertyValue
        /// How it fares.
        public let status: Status
    }

    /// A bound property of the selected control (bound through its resolver), explained.
    public struct Property: Equatable, Sendable, Encodable {
        /// `submit.titleColor`, `pin.dots.0.fillColor`, ….
        public let name: String
        /// The value it gets in the applied state.
        public let value: PropertyValue
        /// The default, captured when it was first bound.
        public let defaultValue: PropertyValue
        /// Whether no rule matches, so the default applies.
        public let defaultApplies: Bool
        /// Its rules in resolution order (priority descending, then most recently set first).
        public var rules: [Rule]
        /// The rules left out past ``Inspector/Limits/rulesPerProperty``.
        public var omittedRules: Int
        /// Why the value is what it is: `the only matching rule`, `tied at priority 999 with …`.
        public let reason: String
    }

    /// A rule that wins where a shadowed rule matches.
    public struct Shadowing: Equatable, Sendable, Encodable {
        /// The winning rule's descriptor.
        public let descriptor: String
        /// Its value, described.
        public let value: String
        /// The first few states where it wins (described), and how many more.
        public let states: [String]
        /// The states left out of ``states``.
        public let moreStates: Int
    }

    /// A problem the lint found among the selected control's rules.
    public struct Diagnostic: Equatable, Sendable, Encodable {
        /// `shadowed`, `neverMatches`, `alwaysDefault` or `neverChanges`.
        public let problem: String
        /// The property's name.
        public let property: String
        /// The rule at fault (its descriptor), nil for a problem of the whole binding.
        public let descriptor: String?
        /// The rule's value, or the value the binding always has, described.
        public let value: String
        /// For a shadowed rule, the rules that win where it matches.
        public let beatenBy: [Shadowing]
        /// The problem in one sentence.
        public let text: String
    }

    /// The value a property gets in each reachable state of the selected control, as a grid:
    /// one column per combination of the built-in bits, one row per combination of the custom
    /// states. Bit *i* of a column (row) number says whether the state has the *i*-th of
    /// ``columnBits`` (``rowBits``).
    public struct StateTable: Equatable, Sendable, Encodable {
        /// A value that wins somewhere in the table.
        public struct Winner: Equatable, Sendable, Encodable {
            /// The winning rule's descriptor; nil for the default.
            public let descriptor: String?
            /// Its value.
            public let value: PropertyValue
        }
        /// The property.
        public let property: String
        /// The built-in bits, one binary digit of a column number each.
        public let columnBits: [String]
        /// The custom states, one binary digit of a row number each.
        public let rowBits: [String]
        /// Every value that wins somewhere, first seen first.
        public let winners: [Winner]
        /// `cells[row][column]`: the index in ``winners`` of the state's winner.
        public let cells: [[Int]]
        /// The applied state's cell, `[row, column]`.
        public let applied: [Int]
    }

    /// A transition of a control, as it happened.
    public struct TransitionRecord: Equatable, Sendable, Encodable {
        /// The control's id.
        public let control: String
        /// `began`, `committed` or `ended`.
        public let change: String
        /// 1 for the outermost transition.
        public let depth: Int
        /// The control's applied state just after (for the outermost commit, the state it applied).
        public let state: String
    }

    /// Every control's state.
    public var controls: [ControlSummary]
    /// The id of the control whose details follow.
    public var selected: String
    /// The bits its state can have: normal, the four built-in ones, then its registered custom
    /// states.
    public var bits: [Bit]
    /// Its bound properties, explained, in the order a state change writes them.
    public var properties: [Property]
    /// The properties left out (past the limits).
    public var omittedProperties: Int
    /// Its lint report; nil when not made (see ``lintNote``).
    public var lint: [Diagnostic]?
    /// The diagnostics left out (past the limits).
    public var omittedDiagnostics: Int
    /// Why there is no lint report, when there is none.
    public var lintNote: String?
    /// The state table of the chosen property; nil when there is none (see ``tableNote``).
    public var table: StateTable?
    /// Why there is no state table, when there is none.
    public var tableNote: String?
    /// The transitions since the previous report, oldest first.
    public var transitions: [TransitionRecord]
    /// The transitions left out (past the limits).
    public var omittedTransitions: Int
    /// What was left out to keep the message within ``Inspector/maxReportSize``, if anything.
    public var note: String?
}
