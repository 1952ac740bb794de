import Foundation
import Testing
import StatefulControls

// A model-based test, with shrinking, of bound values when user code calls back into the control.
//
// What it checks. Seeded random sequences of 20-40 operations run on a fresh control with three
// targets, t0-t2. After every top-level operation, for every live target and property:
// - the property holds the model's value for `appliedState`: of the rules bound to it that
//   match, the highest priority, between equal priorities the one set most recently; with no
//   rule matching, or none left, its default (its value when first bound: for these targets,
//   always their initial value, so a removed binding must leave that value behind);
// - `control.value(for:of:in: appliedState)` gives the same value, or nil when no rule is left;
// - outside a transition the applied state is the state, and `removeValue` returned whether
//   the model had that rule.
// The model keeps each (target, property)'s rules, most recent last, and matches them with the
// library's formula, `StateDescriptor.matches` (tested on its own elsewhere).
//
// The operations: `setValue` with the six descriptor modes (custom ones with pure predicates)
// and priorities that often tie, a rule set again, `removeValue(for:of:when:)`,
// `removeValues(for:of:)`, `removeValues(of:)`, `removeAllValues()`, factor changes (one a custom
// `@StateFactor`), custom states registered with `register(_:named:when:)`,
// `beginTransition()`/`commitTransition()`, and a target released (a new one often gets its
// address). User code calls back: a property can be armed with actions (any other operation),
// run one a write by its `didSet`; writes happen inside setValue, the removals and apply, so an
// action may remove a binding mid-apply, bind the very property being written, or change a
// factor and so apply a new state from inside an apply. A `Token` value runs an action in its
// `deinit`. Every operation, nested or not, runs through `World.perform`, which updates the
// model and then calls the control, so nested calls are modelled in the order they happen.
// Actions and tokens hold the world weakly, so the control never keeps it alive.
//
// Shrinking. A failing sequence is minimised by `shrink(_:simplifications:fails:)`: remove
// chunks of halving size down to single operations, then replace each operation by the first of
// its simplifications that still fails (`Op.simplifications`: a nested action dropped or
// simplified, priority 1, a mask bit less, value 1, target t0, property `a`), and repeat until
// nothing changes: no single removal or simplification of the result still fails. The issue
// gives the seed (`Generator(seed:)`), the failure and the minimal sequence, one operation a line.
//
// A trap in the library stops the process, which no test can catch or shrink: run with
// MODEL_BASED_TRACE=1 to print each seed and operation as it runs, so that the output ends with
// the seed and the operation that trapped.
@MainActor
@Suite("Model-based: bound values under user code that calls back")
struct ModelBasedReentrancyTests {
    @Test func everyBoundPropertyHoldsTheResolvedValueAfterEveryOperation() {
        var reported: Set<String> = []  // distinct minimal sequences; five are enough to read
        let tracing = ProcessInfo.processInfo.environment["MODEL_BASED_TRACE"] != nil
        for seed: UInt64 in 1...500 {
            var generator = Generator(seed: seed)
            let sequence = generator.sequence()
            if tracing { trace("seed \(seed)") }
            guard World.firstFailure(of: sequence, tracing: tracing) != nil else { continue }
            let minimal = shrink(sequence, simplifications: \.simplifications) { World.firstFailure(of: $0) != nil }
            let steps = minimal.enumerated().map { "  \($0 + 1). \($1)" }.joined(separator: "\n")
            guard reported.insert(steps).inserted else { continue }
            Issue.record(
                Comment(
                    rawValue: """
                        seed \(seed): \(World.firstFailure(of: minimal) ?? "passes when run again")
                        minimal failing sequence (\(minimal.count) of \(sequence.count) operations):
                        \(steps)
                        """))
            if reported.count == 5 { break }
        }
    }

    @Test func theShrinkerFindsTheMinimalSequence() {
        // An element of at least 7 followed by a positive one; simpler is smaller.
        let fails = { (list: [Int]) in list.indices.contains { i in list[i] >= 7 && list[(i + 1)...].contains { $0 > 0 } } }
        #expect(shrink([2, 9, 4, 8, 6, 5, 2], simplifications: { [0, $0 / 2, $0 - 1].filter { $0 >= 0 } }, fails: fails) == [7, 1])

        // Operations: the one that puts 7 in t0.a, with its priority and mask simplified.
        let sequence: [Op] = [
            .factor(.isSelected, true),
            .set(1, .b, 4, Rule(.containingAny, [.selected, .focused], 999)),
            .arm(1, .b, .factor(.isHighlighted, true)),
            .set(0, .a, 7, Rule(.containing, .selected, 750)),
            .set(0, .b, 2, Rule(.notContaining, .focused, 2)),
            .factor(.isFocused, true),
            .set(2, .token, 3, Rule(.exactly, [], 1000), onDeinit: .removeTarget(1)),
            .drop(2),
        ]
        let holdsSeven = { (ops: [Op]) in World.run(ops).sinks[0].a == 7 }
        #expect(holdsSeven(sequence))
        #expect(
            shrink(sequence, simplifications: \.simplifications, fails: holdsSeven).map(\.description)
                == ["t0.a = 7 when containing(normal) @1"])
    }
}

/// Writes a line to standard error, unbuffered: it is not lost when the process traps.
func trace(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

// MARK: Shrinking

/// Minimises a sequence for which `fails` is true (see the file's documentation).
func shrink<Element>(
    _ sequence: [Element], simplifications: (Element) -> [Element],
    fails: ([Element]) -> Bool
) -> [Element] {
    var current = sequence
    var shrunk = true
    while shrunk {
        shrunk = false
        var size = max(current.count / 2, 1)
        while size >= 1 {
            var start = 0
            while start + size <= current.count {
                var candidate = current
                candidate.removeSubrange(start..<start + size)
                if fails(candidate) { (current, shrunk) = (candidate, true) } else { start += size }
            }
            size /= 2
        }
        for index in current.indices {
            var candidate = current
            for simpler in simplifications(current[index]) {
                candidate[index] = simpler
                if fails(candidate) { (current, shrunk) = (candidate, true); break }
            }
        }
    }
    return current
}

// MARK: The world: the control, its targets and the model

final class Subject: Control {
    @StateFactor var isRaised = false
}

/// A bound value whose deinit is user code calling back. Holds the world weakly: the control
/// holds its values, so a strong reference would be a cycle.
final class Token {
    let id: Int
    let onDeinit: Op?
    weak var world: World?
    init(_ id: Int, onDeinit: Op?, world: World) { (self.id, self.onDeinit, self.world) = (id, onDeinit, world) }
    deinit {
        guard let onDeinit, let world else { return }
        MainActor.assumeIsolated { world.perform(onDeinit) }
    }
}

/// A target (held weakly by the control) whose setters run the action armed for them.
@MainActor
final class Sink {
    weak var world: World?
    /// The actions armed on each property: its writes run them, one a write, in order.
    var armed: [Property: [Op]] = [:]
    var a = 0 { didSet { written(.a) } }
    var b = 0 { didSet { written(.b) } }
    /// The replaced token is released after the setter, not inside its access to the property
    /// (where its deinit calling back to write `token` again would be an exclusivity violation).
    var token: Token? { didSet { withExtendedLifetime(oldValue) { written(.token) } } }

    init(_ world: World) { self.world = world }

    private func written(_ property: Property) {
        guard let action = armed[property]?.first else { return }
        armed[property]?.removeFirst()
        world?.perform(action)
    }

    func value(_ property: Property) -> Int? {
        switch property {
        case .a: a
        case .b: b
        case .token: token?.id
        }
    }
}

@MainActor
final class World {
    nonisolated static let slots = 3
    struct Key: Hashable { let slot: Int, property: Property }

    let control = Subject()
    private(set) var sinks: [Sink] = []
    /// The model: each (slot, property)'s rules and values, most recently set last.
    private var rules: [Key: [(rule: Rule, value: Int)]] = [:]
    private var registered: Set<Custom> = []
    private var failures: [String] = []

    init() { sinks = (0..<Self.slots).map { _ in Sink(self) } }

    /// Runs `sequence` on a new world.
    static func run(_ sequence: [Op]) -> World {
        let world = World()
        sequence.forEach(world.perform)
        return world
    }

    /// Runs `sequence` on a new world, checking the model and the control's invariants after
    /// every operation; the first failure.
    static func firstFailure(of sequence: [Op], tracing: Bool = false) -> String? {
        let world = World()
        for (index, op) in sequence.enumerated() {
            if tracing { trace("  \(index + 1). \(op)") }
            world.perform(op)
            if let failure = world.failure() ?? world.control.checkInvariants() {
                return "after operation \(index + 1): \(failure)"
            }
        }
        return nil
    }

    /// Performs `op` on the model, then on the control (where user code may call back).
    func perform(_ op: Op) {
        switch op {
        case let .set(slot, property, value, rule, onDeinit):
            let key = Key(slot: slot, property: property)
            rules[key] = (rules[key] ?? []).filter { $0.rule != rule } + [(rule, value)]
            let (sink, descriptor) = (sinks[slot], rule.descriptor)
            switch property {
            case .a: control.setValue(value, for: \.a, of: sink, when: descriptor)
            case .b: control.setValue(value, for: \.b, of: sink, when: descriptor)
            case .token: control.setValue(Token(value, onDeinit: onDeinit, world: self), for: \.token, of: sink, when: descriptor)
            }
        case let .removeValue(slot, property, rule):
            let key = Key(slot: slot, property: property)
            let expected = rules[key]?.contains { $0.rule == rule } ?? false
            rules[key]?.removeAll { $0.rule == rule }
            let (sink, descriptor) = (sinks[slot], rule.descriptor)
            let removed =
                switch property {
                case .a: control.removeValue(for: \.a, of: sink, when: descriptor)
                case .b: control.removeValue(for: \.b, of: sink, when: descriptor)
                case .token: control.removeValue(for: \.token, of: sink, when: descriptor)
                }
            if removed != expected { failures.append("\(op) returned \(removed), expected \(expected)") }
        case .removeValues(let slot, let property):
            rules[Key(slot: slot, property: property)] = nil
            let sink = sinks[slot]
            switch property {
            case .a: control.removeValues(for: \.a, of: sink)
            case .b: control.removeValues(for: \.b, of: sink)
            case .token: control.removeValues(for: \.token, of: sink)
            }
        case .removeTarget(let slot):
            forget(slot)
            control.removeValues(of: sinks[slot])
        case .removeAllValues:
            rules = [:]
            control.removeAllValues()
        case let .factor(factor, on):
            switch factor {
            case .isEnabled: control.isEnabled = on
            case .isSelected: control.isSelected = on
            case .isHighlighted: control.isHighlighted = on
            case .isFocused: control.isFocused = on
            case .isRaised: control.isRaised = on
            }
        case let .register(custom):
            guard registered.insert(custom).inserted else { return }
            switch custom {
            case .raised: control.register(custom.state, named: "isRaised") { $0.isRaised }
            case .odd: control.register(custom.state, named: "selected != focused") { $0.isSelected != $0.isFocused }
            }
        case .beginTransition: control.beginTransition()
        case .commitTransition: if control.isInTransition { control.commitTransition() }
        case let .drop(slot):
            // Twice: the target dies while a stand-in holds its slot (its token's deinit may
            // call back), then the stand-in is released for a new target, which malloc tends to
            // place at the address of the dead one.
            for _ in 0..<2 {
                forget(slot)
                let released = sinks[slot]
                sinks[slot] = Sink(self)
                // Released here, not inside the assignment, where a deinit calling back would
                // be an exclusivity violation.
                withExtendedLifetime(released) {}
            }
        case let .arm(slot, property, action): sinks[slot].armed[property, default: []].append(action)
        }
    }

    private func forget(_ slot: Int) {
        for property in Property.allCases { rules[Key(slot: slot, property: property)] = nil }
    }

    /// The first invariant broken, nil when all hold.
    func failure() -> String? {
        if let failure = failures.first { return failure }
        let applied = control.appliedState
        if !control.isInTransition && applied != control.state {
            return "the applied state [\(Rule.name(applied))] is not the state [\(Rule.name(control.state))]"
        }
        for (slot, sink) in sinks.enumerated() {
            for property in Property.allCases {
                let rules = rules[Key(slot: slot, property: property)] ?? []
                // The winner: the highest priority, then the most recent (the last one).
                let matching = rules.filter { $0.rule.descriptor.matches(applied) }
                let winner = matching.last { $0.rule.priority == matching.map(\.rule.priority).max() }
                let expected = winner.map(\.value) ?? property.initial
                let resolved: Int?? =
                    switch property {
                    case .a: control.value(for: \.a, of: sink, in: applied).map(Optional.some)
                    case .b: control.value(for: \.b, of: sink, in: applied).map(Optional.some)
                    case .token: control.value(for: \.token, of: sink, in: applied).map { $0?.id }
                    }
                let (actual, expectedResolved) = (sink.value(property), rules.isEmpty ? Int??.none : expected)
                if actual != expected || resolved != expectedResolved {
                    let show = { (value: Int?) in value.map(String.init) ?? "nil" }
                    let showResolved = { (value: Int??) in value.map(show) ?? "nothing bound" }
                    return "in [\(Rule.name(applied))] t\(slot).\(property) holds \(show(actual)) and"
                        + " control.value(for:of:in:) says \(showResolved(resolved)); expected \(show(expected))"
                        + " (\(winner.map { "\($0.rule) wins" } ?? "the default")) and \(showResolved(expectedResolved))"
                }
            }
        }
        return nil
    }
}
