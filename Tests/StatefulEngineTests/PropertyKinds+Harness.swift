import Testing
@testable import StatefulEngine

// The differential driver of PropertyKindsDifferentialTests: a resolver writes a subject's
// property; a twin of the same class is written with plain `twin[keyPath:] = value` whenever
// this file's own model of the descriptors says the winner changed. After every step both
// objects must hold the same value and have logged the same observer calls, and the model must
// agree with the resolver on every state.

/// One rule of the scenario: the descriptor bound, and the model's own formula for it.
struct ModelRule: Sendable {
    let descriptor: StateDescriptor
    let priority: Int32
    let matches: @Sendable (ControlState) -> Bool

    /// The library's defaults are restated here (not read from the descriptor).
    static func containing(_ s: ControlState, _ priority: Int32 = 999) -> ModelRule {
        ModelRule(descriptor: .containing(s, priority: priority), priority: priority) { $0.rawValue & s.rawValue == s.rawValue }
    }
    static func exactly(_ s: ControlState, _ priority: Int32 = 1000) -> ModelRule {
        ModelRule(descriptor: .exactly(s, priority: priority), priority: priority) { $0.rawValue == s.rawValue }
    }
    static func notContaining(_ s: ControlState, _ priority: Int32 = 750) -> ModelRule {
        ModelRule(descriptor: .notContaining(s, priority: priority), priority: priority) { $0.rawValue & s.rawValue != s.rawValue }
    }
    static func containingAny(_ s: ControlState, _ priority: Int32 = 500) -> ModelRule {
        ModelRule(descriptor: .containingAny(s, priority: priority), priority: priority) { $0.rawValue & s.rawValue != 0 }
    }
    static func containingNone(_ s: ControlState, _ priority: Int32 = 500) -> ModelRule {
        ModelRule(descriptor: .containingNone(s, priority: priority), priority: priority) { $0.rawValue & s.rawValue == 0 }
    }
    static func custom(_ name: String, _ priority: Int32, _ predicate: @escaping @Sendable (ControlState) -> Bool) -> ModelRule {
        ModelRule(descriptor: .custom(name, priority: priority, predicate), priority: priority, matches: predicate)
    }
}

/// The rules, states and removals every case goes through.
enum Scenario {
    /// Rule i is bound with value i. R0 and R5 tie at 999: the one set last wins.
    static let rules: [ModelRule] = [
        .containing(.selected),  // R0 @999
        .exactly([.selected, .highlighted], 1500),  // R1
        .notContaining(.highlighted, 950),  // R2: wins at once
        .containingAny([.disabled, .focused]),  // R3 @500
        .custom("disabled and focused", 1200) { $0.contains([.disabled, .focused]) },  // R4
        .containingAny(.focused, 999),  // R5
        .containingNone(.highlighted, 100),  // R6: under R2
    ]

    /// Every system state alone and in combinations, back to normal; `.highlighted` alone
    /// matches no rule (the default). Winners: R2, -, R0, R1, R2, R4, R5, R5, R5, R0, R4, -, R2.
    static let cycle: [ControlState] = [
        .highlighted, .selected, [.selected, .highlighted], .disabled, [.disabled, .focused], .focused,
        [.focused, .highlighted], [.selected, .focused], [.selected, .disabled],
        [.highlighted, .disabled, .selected, .focused], .highlighted, .normal,
    ]

    /// Between the two cycles, R0 is bound again (value 7) in [selected, focused], where it
    /// then wins the tie with R5.
    static let rebindState: ControlState = [.selected, .focused]
    static let rebindValueIndex = 7

    /// After the cycles: each removal, then an apply of the paired state.
    static let removals: [(rule: Int, then: ControlState)] = [
        (2, .selected), (0, [.disabled, .focused]), (4, [.selected, .highlighted]), (1, .focused),
        (5, .highlighted), (3, .normal), (6, .selected),
    ]

    /// The 16 states of the four system bits: the model and the resolver are compared on all.
    static let allStates = (0..<16).map { ControlState(rawValue: UInt($0)) }
}

/// The model's rule set: which bound value wins in a state.
struct WinnerModel {
    struct Bound: Equatable {
        let rule: Int
        let valueIndex: Int
        /// When it was set: breaks priority ties (the latest wins) and identifies the value.
        let sequence: Int
    }

    private(set) var bound: [Bound] = []
    private var sequence = 0

    mutating func set(rule: Int, valueIndex: Int) {
        bound.removeAll { $0.rule == rule }
        sequence += 1
        bound.append(Bound(rule: rule, valueIndex: valueIndex, sequence: sequence))
    }

    mutating func remove(rule: Int) { bound.removeAll { $0.rule == rule } }

    func winner(in state: ControlState) -> Bound? {
        bound.filter { Scenario.rules[$0.rule].matches(state) }
            .max { (Scenario.rules[$0.rule].priority, $0.sequence) < (Scenario.rules[$1.rule].priority, $1.sequence) }
    }
}

/// A case of the test: a name, and its run (which builds everything it uses).
struct KindCase: Sendable, CustomTestStringConvertible {
    let name: String
    let body: @Sendable (String) throws -> Void
    init(_ name: String, _ body: @escaping @Sendable (String) throws -> Void) { (self.name, self.body) = (name, body) }
    var testDescription: String { name }
    func run() throws { try body(name) }
}

/// Drives one property kind: binds the scenario's rules to `keyPath` of a subject, applies
/// the cycle twice, removes the rules, and compares the subject with its twin at every step.
struct Differential<Target: AnyObject, Value> {
    let name: String
    let keyPath: ReferenceWritableKeyPath<Target, Value>
    let make: () -> Target
    /// Rule i is bound with values[i % count].
    let values: [Value]
    let same: (Value, Value) -> Bool
    /// What the object recorded of the writes (its observers' log): must be equal.
    let trace: (Target) -> [String]
    /// Run before every third apply, on the subject and the twin alike.
    let interlude: ((Target, Target) -> Void)?

    init(
        _ name: String, _ keyPath: ReferenceWritableKeyPath<Target, Value>, make: @escaping () -> Target,
        values: [Value], same: @escaping (Value, Value) -> Bool,
        trace: @escaping (Target) -> [String] = { _ in [] }, interlude: ((Target, Target) -> Void)? = nil
    ) {
        (self.name, self.keyPath, self.make, self.values, self.same) = (name, keyPath, make, values, same)
        (self.trace, self.interlude) = (trace, interlude)
    }

    init(
        _ name: String, _ keyPath: ReferenceWritableKeyPath<Target, Value>, make: @escaping () -> Target,
        values: [Value], trace: @escaping (Target) -> [String] = { _ in [] }, interlude: ((Target, Target) -> Void)? = nil
    )
    where Value: Equatable {
        self.init(name, keyPath, make: make, values: values, same: ==, trace: trace, interlude: interlude)
    }

    func value(_ index: Int) -> Value { values[index % values.count] }

    /// Runs the case, then checks that the subject and the twin were freed (the resolver,
    /// still alive, must not keep its target).
    func run() throws {
        let resolver = StateResolver()
        weak var weakSubject: Target?
        weak var weakTwin: Target?
        try {
            let subject = make(), twin = make()
            (weakSubject, weakTwin) = (subject, twin)
            var run = Run(differential: self, resolver: resolver, subject: subject, twin: twin)
            try run.drive()
        }()
        #expect(weakSubject == nil, "\(name): the subject was freed")
        #expect(weakTwin == nil, "\(name): the twin was freed")
        withExtendedLifetime(resolver) {}
    }

    /// One run: the resolver, the two objects, the model, and what the twin was last given.
    struct Run {
        let differential: Differential
        let resolver: StateResolver
        let subject: Target
        let twin: Target
        var model = WinnerModel()
        var applied = ControlState.normal
        /// The sequence of the bound value the twin holds; nil for the default.
        var twinHolds: Int?
        var defaultValue: Value
        var applies = 0
        /// The twin's writes so far (a run writes about thirty: the check that it is not idle).
        var twinWrites = 0

        init(differential: Differential, resolver: StateResolver, subject: Target, twin: Target) {
            (self.differential, self.resolver, self.subject, self.twin) = (differential, resolver, subject, twin)
            // The resolver reads the subject's value at the first bind: the twin's, read now
            // (the same getter calls, in the same order relative to the writes), is the default.
            defaultValue = twin[keyPath: differential.keyPath]
        }

        var keyPath: ReferenceWritableKeyPath<Target, Value> { differential.keyPath }

        mutating func drive() throws {
            for (index, _) in Scenario.rules.enumerated() { try bind(rule: index, valueIndex: index) }
            for state in Scenario.cycle { try apply(state) }
            try apply(Scenario.rebindState)
            try bind(rule: 0, valueIndex: Scenario.rebindValueIndex)
            for state in Scenario.cycle { try apply(state) }
            for (rule, state) in Scenario.removals {
                remove(rule: rule)
                try apply(state)
            }
            #expect(resolver.ruleCount == 0, "\(differential.name): no rule left")
            #expect(twinWrites >= 25, "\(differential.name): the twin was written \(twinWrites) times")
        }

        mutating func bind(rule: Int, valueIndex: Int) throws {
            try resolver.setValue(
                differential.value(valueIndex), for: keyPath, of: subject,
                when: Scenario.rules[rule].descriptor)
            model.set(rule: rule, valueIndex: valueIndex)
            syncTwin()
            compare("after binding R\(rule) = value \(valueIndex) in \(applied)")
        }

        mutating func remove(rule: Int) {
            let removed = resolver.removeValue(for: keyPath, of: subject, when: Scenario.rules[rule].descriptor)
            #expect(removed, "\(differential.name): R\(rule) was bound")
            model.remove(rule: rule)
            syncTwin()
            compare("after removing R\(rule) in \(applied)")
        }

        mutating func apply(_ state: ControlState) throws {
            applies += 1
            if let interlude = differential.interlude, applies % 3 == 0 { interlude(subject, twin) }
            let written = try resolver.apply(state)
            applied = state
            let twinWrites = syncTwin()
            let sameWrites = written == twinWrites
            #expect(sameWrites, "\(differential.name): apply(\(state)) wrote \(written) values, the model \(twinWrites)")
            compare("after apply(\(state))")
        }

        /// Writes the twin, as plain Swift, when the model's winner changed; returns the writes.
        @discardableResult
        mutating func syncTwin() -> Int {
            let winner = model.winner(in: applied)
            guard winner?.sequence != twinHolds else { return 0 }
            twinHolds = winner?.sequence
            twin[keyPath: keyPath] = expected(winner)
            twinWrites += 1
            return 1
        }

        func expected(_ winner: WinnerModel.Bound?) -> Value {
            winner.map { differential.value($0.valueIndex) } ?? defaultValue
        }

        /// The subject against the twin; the resolver against the model on every state.
        func compare(_ step: @autoclosure () -> String) {
            let name = differential.name
            let held = subject[keyPath: keyPath], twinHeld = twin[keyPath: keyPath]
            let sameValue = differential.same(held, twinHeld)
            #expect(sameValue, "\(name) \(step()): the subject holds \(held), the twin \(twinHeld)")
            let log = differential.trace(subject), twinLog = differential.trace(twin)
            let sameLog = log == twinLog
            #expect(sameLog, "\(name) \(step()): the subject's log \(log) differs from the twin's \(twinLog)")
            #expect(resolver.appliedState == applied, "\(name) \(step()): applied state")
            for state in Scenario.allStates {
                let resolved = resolver.value(for: keyPath, of: subject, in: state)
                if model.bound.isEmpty {
                    #expect(resolved == nil, "\(name) \(step()): nothing is bound, yet the resolver has a value in \(state)")
                } else if let resolved {
                    let expected = expected(model.winner(in: state))
                    let agree = differential.same(resolved, expected)
                    #expect(
                        agree,
                        "\(name) \(step()): in \(state) the resolver says \(resolved), the model \(expected)")
                } else {
                    Issue.record("\(name) \(step()): the resolver has no value in \(state)")
                }
            }
        }
    }
}
