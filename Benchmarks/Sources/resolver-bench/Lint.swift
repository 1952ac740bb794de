import CStateResolver
import SeededRandom
import StatefulControls

// MARK: - lint: 1,000 bindings × 4 rules on a control of 6 factor bits (64 reachable states)

/// A control with two custom states besides the four built-in factors: 64 reachable states.
@MainActor
final class LintedControl: Control {
    @StateFactor var isFirst = false
    @StateFactor var isSecond = false

    init(first: ControlState, second: ControlState) {
        super.init()
        register(first, for: \._isFirst)
        register(second, for: \._isSecond)
    }
}

extension Scenarios {
    /// Rule lint of a control: the C pass alone (csr_lint over a table of the same rules), and
    /// `Control.lintRules()` end to end (the reachable states, the pass, the diagnostics).
    func lint() {
        let first = BenchStates.all[0], second = BenchStates.all[1]
        let control = LintedControl(first: first, second: second)
        let bits = [ControlState.highlighted, .disabled, .selected, .focused, first, second].map { UInt64($0.rawValue) }
        let bindings = 1000, rulesPerBinding = 4
        var rng = SplitMix64(seed: 64)
        // Mixed modes over one or two of the control's bits, default priorities (so ties occur):
        // some rules are shadowed, some bindings never change, as in a real table.
        let rules = (0..<bindings).map { binding in
            (0..<rulesPerBinding).map { index -> RuleSpec in
                let mode = RuleSpec.Mode.allCases.dropLast().randomElement(using: &rng)!
                let mask = (0..<Int.random(in: 1...2, using: &rng)).reduce(UInt64(0)) { mask, _ in mask | bits.randomElement(using: &rng)! }
                return RuleSpec(
                    mode: mode, mask: mask, priority: RuleSpec.defaultPriority(mode),
                    value: UInt32(binding * rulesPerBinding + index + 1))
            }
        }
        let nodes = (0..<bindings).map { _ in Node() }
        let table = Table()
        for (index, node) in nodes.enumerated() {
            for rule in rules[index] {
                control.setValue(rule.value, for: \.value, of: node, when: rule.descriptor)
                table.set(UInt32(index), 0, rule)
            }
        }
        let states = control.reachableStates
        precondition(states.count == 64, "the lint control has \(states.count) reachable states, not 64")
        let rawStates = states.map { UInt64($0.rawValue) }
        let diagnostics = control.lintRules()
        let params: [String: Param] = ["bindings": .int(bindings), "rules": .int(bindings * rulesPerBinding), "states": .int(64)]
        let note =
            "\(diagnostics.count) diagnostics: "
            + Dictionary(grouping: diagnostics) { "\($0.problem)".prefix { $0 != "(" } }
            .sorted { $0.key < $1.key }.map { "\($0.value.count) \($0.key)" }.joined(separator: ", ")
        report.run("lint", "csr_lint (C pass)", params, note: "the report allocated and freed") { count in
            for _ in 0..<count {
                var lint: UnsafeMutablePointer<csr_lint_report>?
                precondition(csr_lint(table.pointer, rawStates, rawStates.count, &lint) == CSR_OK)
                consume(UInt64(lint!.pointee.binding_count))
                csr_lint_free(lint)
            }
        }
        report.run("lint", "Control.lintRules() (end to end)", params, note: note) { count in
            for _ in 0..<count { consume(UInt64(control.lintRules().count)) }
        }
        withExtendedLifetime(nodes) {}
    }
}
