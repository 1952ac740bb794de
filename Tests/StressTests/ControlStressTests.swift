import SeededRandom
import Foundation
import StatefulControls
import Testing

/// Random operations on controls, checked against a model after every one: binding and
/// unbinding values, state changes, transitions, targets deallocated (and new objects at their
/// addresses), and dispatches whose handlers mutate the control. Every eighth operation, each
/// control's structures are checked too (``Control/checkInvariants()``).
///
/// `STRESS_OPERATIONS` sets the number of operations (20,000 by default; `make check` runs a
/// million in release).
@MainActor
@Suite("Stress: random Control API operations against a model")
struct ControlStressTests {
    final class Sink {
        var value = 0
    }

    final class Receiver {
        var deliveries = 0
        func hit() { deliveries += 1 }
    }

    /// The model keeps each rule as its `StateDescriptor` (whose identity is the rule's).
    /// Matching is the library's one Swift formula, `StateDescriptor.matches` (pinned by the
    /// example table of the engine's tests); the model checks everything around it: priorities,
    /// ties, defaults, diffs and writes. These are the five mask modes' constructors.
    static var modes: [(ControlState, Int32) -> StateDescriptor] {
        [
            StateDescriptor.exactly, StateDescriptor.containing, StateDescriptor.notContaining,
            StateDescriptor.containingAny, StateDescriptor.containingNone,
        ]
    }

    /// One control with its sinks and the model of its rules.
    @MainActor
    final class Subject {
        let control = Control()
        var sinks: [Sink] = []
        var rules: [ObjectIdentifier: [(rule: StateDescriptor, value: Int, sequence: Int)]] = [:]
        var pendingEnd = false

        func expected(_ sink: Sink) -> Int {
            let applied = control.appliedState
            return rules[ObjectIdentifier(sink)]?.filter { $0.rule.matches(applied) }
                .max { ($0.rule.priority, $0.sequence) < ($1.rule.priority, $1.sequence) }?.value ?? 0
        }
    }

    static let masks: [UInt] = [0, 1, 2, 4, 8, 5, 12, 6]
    static let priorities: [Int32] = [500, 750, 999, 1000]

    /// How often the controls' ``Control/checkInvariants()`` runs, in operations.
    static let invariantsEvery = 8

    @Test func randomOperationsKeepEveryInvariant() throws {
        let operations = ProcessInfo.processInfo.environment["STRESS_OPERATIONS"].flatMap(Int.init) ?? 20_000
        var rng = SplitMix64(seed: 2026)
        let subjects = (0..<3).map { _ in Subject() }
        var sequence = 0
        var expectedDeliveries = 0
        let receiver = Receiver()
        for subject in subjects {
            subject.control.addTarget(receiver, action: Selector("hit", Receiver.hit), for: .valueChanged)
        }

        for step in 0..<operations {
            let subject = subjects.randomElement(using: &rng)!
            let control = subject.control
            switch Int.random(in: 0..<100, using: &rng) {
            case 0..<30:  // bind
                if subject.sinks.count < 6 || subject.sinks.isEmpty { subject.sinks.append(Sink()) }
                let sink = subject.sinks.randomElement(using: &rng)!
                let mode = Self.modes.randomElement(using: &rng)!
                let rule = mode(
                    ControlState(rawValue: Self.masks.randomElement(using: &rng)!),
                    Self.priorities.randomElement(using: &rng)!)
                let value = Int.random(in: 1...1_000, using: &rng)
                sequence += 1
                control.setValue(value, for: \.value, of: sink, when: rule)
                var list = subject.rules[ObjectIdentifier(sink), default: []]
                list.removeAll { $0.rule == rule }
                list.append((rule, value, sequence))
                subject.rules[ObjectIdentifier(sink)] = list
            case 30..<38:  // unbind one rule
                guard let sink = subject.sinks.randomElement(using: &rng),
                    let entry = subject.rules[ObjectIdentifier(sink)]?.randomElement(using: &rng)
                else { break }
                try #require(control.removeValue(for: \.value, of: sink, when: entry.rule), "step \(step)")
                subject.rules[ObjectIdentifier(sink)]!.removeAll { $0.rule == entry.rule }
            case 38..<41:  // unbind a binding
                guard let sink = subject.sinks.randomElement(using: &rng) else { break }
                control.removeValues(for: \.value, of: sink)
                subject.rules[ObjectIdentifier(sink)] = nil
            case 41..<43:  // unbind a target
                guard let sink = subject.sinks.randomElement(using: &rng) else { break }
                control.removeValues(of: sink)
                subject.rules[ObjectIdentifier(sink)] = nil
            case 43:
                control.removeAllValues()
                subject.rules = [:]
            case 44..<50:  // a target dies; a new object may take its address
                guard !subject.sinks.isEmpty else { break }
                let index = Int.random(in: 0..<subject.sinks.count, using: &rng)
                subject.rules[ObjectIdentifier(subject.sinks[index])] = nil
                subject.sinks.remove(at: index)
                let newcomer = Sink()
                subject.sinks.append(newcomer)
                try #require(newcomer.value == 0)
            case 50..<75:  // a factor changes
                toggleFactor(control, &rng)
                subject.pendingEnd = false
            case 75..<83:  // a transition
                let commit = Bool.random(using: &rng)
                control.performTransition(commit: commit) {
                    for _ in 0..<Int.random(in: 1...3, using: &rng) { toggleFactor(control, &rng) }
                    control.sendActions(for: .valueChanged)
                }
                if commit { expectedDeliveries += 1 }
                subject.pendingEnd = !commit
            case 83..<86:
                control.updateState()
                subject.pendingEnd = false
            default:  // a dispatch whose handler mutates the control
                let identifier = Action.Identifier(rawValue: "mutator")
                control.addAction(
                    Action(identifier: identifier) { action in
                        let sender = action.sender!
                        sender.isHighlighted.toggle()
                        sender.removeAction(identifiedBy: identifier)
                        sender.sendActions(for: .valueChanged)  // nested
                    }, for: .valueChanged)
                control.sendActions(for: .valueChanged)
                expectedDeliveries += 2  // the outer sending and the nested one
                subject.pendingEnd = false
            }
            // Invariants.
            for subject in subjects {
                let control = subject.control
                if !subject.pendingEnd {
                    try #require(control.appliedState == control.state, "step \(step): applied state lags")
                }
                for sink in subject.sinks {
                    try #require(sink.value == subject.expected(sink), "step \(step): wrong value for a sink")
                }
            }
            try #require(receiver.deliveries == expectedDeliveries, "step \(step): deliveries")
            // The structures' own promises (C table, slab, registry): every few operations, so
            // that make stress's million stays a few minutes.
            if step % Self.invariantsEvery == 0 || step == operations - 1 {
                for subject in subjects {
                    let broken = subject.control.checkInvariants()
                    try #require(broken == nil, "step \(step): \(broken ?? "")")
                }
            }
        }
    }

    private func toggleFactor(_ control: Control, _ rng: inout SplitMix64) {
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: control.isSelected.toggle()
        case 1: control.isFocused.toggle()
        case 2: control.isHighlighted.toggle()
        default: control.isEnabled.toggle()
        }
    }
}
