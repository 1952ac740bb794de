import CStateResolver
import StatefulControls

/// The custom states of the benchmark process, allocated once by name, in order: the first
/// eight are UIKit's application range (`0x00FF0000`), the other 32 the extended range
/// (`0xFFFFFFFF00000000`). Every scenario takes its custom states from here, as a process has
/// forty.
enum BenchStates {
    static let all: [ControlState] = (0..<40).map { index in
        do {
            return try ControlState.allocate(named: "org.statefulcontrols.bench.state\(index)")
        } catch {
            fatalError("resolver-bench: \(error)")
        }
    }
}

// MARK: - custom-states: the same work with 8 custom states and with 40

/// A control with custom states, each on while its bit of `flags` is set (one predicate per
/// state, as a form field deriving many states from its model would register them).
final class ManyStatesControl: Control {
    @StateFactor var flags: UInt64 = 0

    init(states: [ControlState]) {
        super.init()
        for (index, state) in states.enumerated() {
            register(state, named: "flag \(index)") { $0.flags & (1 << index) != 0 }
        }
    }
}

/// A control with custom states registered and 8 values bound to the last 8 of them;
/// `step(i)` flips one of those 8 per call: eight on, then eight off.
@MainActor
struct CustomStateToggle {
    let control: ManyStatesControl
    let nodes = (0..<8).map { _ in Node() }
    let bound: [Int]
    let states: [ControlState]

    /// The three controls the scenario compares: 8 states of UIKit's range, 8 of the extended
    /// range, and all 40 (its bound 8 in the extended range).
    static let shapes: [(name: String, states: ArraySlice<ControlState>)] = [
        ("application", BenchStates.all[..<8]), ("extended", BenchStates.all[32...]), ("both", BenchStates.all[...]),
    ]

    init(states: ArraySlice<ControlState>) {
        self.states = Array(states)
        control = ManyStatesControl(states: self.states)
        bound = Array(self.states.indices.suffix(8))
        for (node, index) in zip(nodes, bound) {
            control.setValue(1, for: \.value, of: node, when: .containing(self.states[index]))
        }
        for i in 0..<16 {
            step(i)
            precondition(showsFlags, "the \(states.count)-state control did not apply step \(i)")
        }
    }

    func step(_ i: Int) { control.flags ^= 1 << UInt64(bound[i & 7]) }

    /// Whether each bound value shows its state's flag.
    var showsFlags: Bool {
        zip(nodes, bound).allSatisfy { node, index in
            let on = control.flags & (1 << UInt64(index)) != 0
            return node.value == (on ? 1 : 0) && control.state.contains(states[index]) == on
        }
    }
}

extension Scenarios {
    /// Resolution and state changes with custom states in UIKit's range and in the extended
    /// range: the C resolver with the same rules, their custom bits moved above bit 32; and
    /// state changes end to end through controls of 8 UIKit states, 8 extended states and all
    /// 40 (see ``CustomStateToggle``).
    func customStates() {
        // The resolve scenario's rules and states at R=16, their four custom bits (16...19)
        // moved to four bits of the extended range.
        let moved: [UInt64: UInt64] = [1 << 16: 1 << 32, 1 << 17: 1 << 45, 1 << 18: 1 << 52, 1 << 19: 1 << 63]
        func move(_ bits: UInt64) -> UInt64 {
            moved.reduce(bits & ~0xF_0000) { bits & $1.key != 0 ? $0 | $1.value : $0 }
        }
        let uikitRules = makeRules(16, seed: 16)
        for (range, rules, states) in [("application", uikitRules, self.states),
                                       ("extended", uikitRules.map { RuleSpec(mode: $0.mode, mask: move($0.mask), priority: $0.priority, value: $0.value) },
                                        self.states.map(move))] {
            let table = Table()
            for rule in rules { table.set(1, 1, rule) }
            for state in states {
                precondition(table.resolve(1, 1, state) == referenceResolve(rules, state) ?? CSR_NO_VALUE,
                             "the resolver disagrees with the reference in state \(state)")
            }
            report.run("custom-states", "resolver (warm)", ["rules": .int(16), "custom_bits": .string(range)]) { count in
                for i in 0..<count { consume(UInt64(table.resolve(1, 1, states[i & 15]))) }
            }
        }

        for (range, states) in CustomStateToggle.shapes {
            let toggle = CustomStateToggle(states: states)
            report.run("custom-states", "Control custom-state toggle (end to end)",
                       ["custom_states": .int(states.count), "range": .string(range)],
                       note: "one registered state's predicate input flips per change; \(states.count) predicates derive the state") { count in
                for i in 0..<count { toggle.step(i) }
            }
        }
    }
}
