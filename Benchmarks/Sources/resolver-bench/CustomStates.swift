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

/// A control with custom states registered one of two ways: each on the storage of a
/// `@StateFactor` Bool of its own (`factors`: the factor pushes its state when it changes), or each by a predicate on one
/// bit of `flags` (`predicates`: every state evaluated on every change, as a form field
/// deriving many states from its model would register them).
final class ManyStatesControl: Control {
    enum Registration: String { case factors, predicates }

    let registration: Registration
    @StateFactor var flags: UInt64 = 0
    @StateFactor var factor0 = false
    @StateFactor var factor1 = false
    @StateFactor var factor2 = false
    @StateFactor var factor3 = false
    @StateFactor var factor4 = false
    @StateFactor var factor5 = false
    @StateFactor var factor6 = false
    @StateFactor var factor7 = false
    @StateFactor var factor8 = false
    @StateFactor var factor9 = false
    @StateFactor var factor10 = false
    @StateFactor var factor11 = false
    @StateFactor var factor12 = false
    @StateFactor var factor13 = false
    @StateFactor var factor14 = false
    @StateFactor var factor15 = false
    @StateFactor var factor16 = false
    @StateFactor var factor17 = false
    @StateFactor var factor18 = false
    @StateFactor var factor19 = false
    @StateFactor var factor20 = false
    @StateFactor var factor21 = false
    @StateFactor var factor22 = false
    @StateFactor var factor23 = false
    @StateFactor var factor24 = false
    @StateFactor var factor25 = false
    @StateFactor var factor26 = false
    @StateFactor var factor27 = false
    @StateFactor var factor28 = false
    @StateFactor var factor29 = false
    @StateFactor var factor30 = false
    @StateFactor var factor31 = false
    @StateFactor var factor32 = false
    @StateFactor var factor33 = false
    @StateFactor var factor34 = false
    @StateFactor var factor35 = false
    @StateFactor var factor36 = false
    @StateFactor var factor37 = false
    @StateFactor var factor38 = false
    @StateFactor var factor39 = false

    static let factorKeyPaths: [ReferenceWritableKeyPath<ManyStatesControl, StateFactor<Bool>>] = [
        \._factor0, \._factor1, \._factor2, \._factor3, \._factor4, \._factor5, \._factor6, \._factor7, \._factor8, \._factor9, \._factor10,
        \._factor11, \._factor12, \._factor13, \._factor14, \._factor15, \._factor16, \._factor17, \._factor18, \._factor19, \._factor20,
        \._factor21, \._factor22, \._factor23, \._factor24, \._factor25, \._factor26, \._factor27, \._factor28, \._factor29, \._factor30,
        \._factor31, \._factor32, \._factor33, \._factor34, \._factor35, \._factor36, \._factor37, \._factor38, \._factor39,
    ]

    static let factorValues: [KeyPath<ManyStatesControl, Bool>] = [
        \.factor0, \.factor1, \.factor2, \.factor3, \.factor4, \.factor5, \.factor6, \.factor7, \.factor8, \.factor9, \.factor10,
        \.factor11, \.factor12, \.factor13, \.factor14, \.factor15, \.factor16, \.factor17, \.factor18, \.factor19, \.factor20, \.factor21,
        \.factor22, \.factor23, \.factor24, \.factor25, \.factor26, \.factor27, \.factor28, \.factor29, \.factor30, \.factor31, \.factor32,
        \.factor33, \.factor34, \.factor35, \.factor36, \.factor37, \.factor38, \.factor39,
    ]

    init(states: [ControlState], registration: Registration) {
        self.registration = registration
        super.init()
        for (index, state) in states.enumerated() {
            switch registration {
            case .factors: register(state, for: Self.factorKeyPaths[index])
            case .predicates: register(state, named: "flag \(index)") { $0.flags & (1 << index) != 0 }
            }
        }
    }

    /// Flips the input of state `index`.
    func flip(_ index: Int) {
        guard registration == .factors else { return flags ^= 1 << UInt64(index) }
        switch index {
        case 0: toggleFactor0()
        case 1: toggleFactor1()
        case 2: toggleFactor2()
        case 3: toggleFactor3()
        case 4: toggleFactor4()
        case 5: toggleFactor5()
        case 6: toggleFactor6()
        case 7: toggleFactor7()
        case 8: toggleFactor8()
        case 9: toggleFactor9()
        case 10: toggleFactor10()
        case 11: toggleFactor11()
        case 12: toggleFactor12()
        case 13: toggleFactor13()
        case 14: toggleFactor14()
        case 15: toggleFactor15()
        case 16: toggleFactor16()
        case 17: toggleFactor17()
        case 18: toggleFactor18()
        case 19: toggleFactor19()
        case 20: toggleFactor20()
        case 21: toggleFactor21()
        case 22: toggleFactor22()
        case 23: toggleFactor23()
        case 24: toggleFactor24()
        case 25: toggleFactor25()
        case 26: toggleFactor26()
        case 27: toggleFactor27()
        case 28: toggleFactor28()
        case 29: toggleFactor29()
        case 30: toggleFactor30()
        case 31: toggleFactor31()
        case 32: toggleFactor32()
        case 33: toggleFactor33()
        case 34: toggleFactor34()
        case 35: toggleFactor35()
        case 36: toggleFactor36()
        case 37: toggleFactor37()
        case 38: toggleFactor38()
        case 39: toggleFactor39()
        default: preconditionFailure("no factor \(index)")
        }
    }

    // One function per factor: a switch of forty inlined setters is past the inliner's budget,
    // which would leave the later ones a key-path projection each.
    @inline(never) func toggleFactor0() { factor0.toggle() }
    @inline(never) func toggleFactor1() { factor1.toggle() }
    @inline(never) func toggleFactor2() { factor2.toggle() }
    @inline(never) func toggleFactor3() { factor3.toggle() }
    @inline(never) func toggleFactor4() { factor4.toggle() }
    @inline(never) func toggleFactor5() { factor5.toggle() }
    @inline(never) func toggleFactor6() { factor6.toggle() }
    @inline(never) func toggleFactor7() { factor7.toggle() }
    @inline(never) func toggleFactor8() { factor8.toggle() }
    @inline(never) func toggleFactor9() { factor9.toggle() }
    @inline(never) func toggleFactor10() { factor10.toggle() }
    @inline(never) func toggleFactor11() { factor11.toggle() }
    @inline(never) func toggleFactor12() { factor12.toggle() }
    @inline(never) func toggleFactor13() { factor13.toggle() }
    @inline(never) func toggleFactor14() { factor14.toggle() }
    @inline(never) func toggleFactor15() { factor15.toggle() }
    @inline(never) func toggleFactor16() { factor16.toggle() }
    @inline(never) func toggleFactor17() { factor17.toggle() }
    @inline(never) func toggleFactor18() { factor18.toggle() }
    @inline(never) func toggleFactor19() { factor19.toggle() }
    @inline(never) func toggleFactor20() { factor20.toggle() }
    @inline(never) func toggleFactor21() { factor21.toggle() }
    @inline(never) func toggleFactor22() { factor22.toggle() }
    @inline(never) func toggleFactor23() { factor23.toggle() }
    @inline(never) func toggleFactor24() { factor24.toggle() }
    @inline(never) func toggleFactor25() { factor25.toggle() }
    @inline(never) func toggleFactor26() { factor26.toggle() }
    @inline(never) func toggleFactor27() { factor27.toggle() }
    @inline(never) func toggleFactor28() { factor28.toggle() }
    @inline(never) func toggleFactor29() { factor29.toggle() }
    @inline(never) func toggleFactor30() { factor30.toggle() }
    @inline(never) func toggleFactor31() { factor31.toggle() }
    @inline(never) func toggleFactor32() { factor32.toggle() }
    @inline(never) func toggleFactor33() { factor33.toggle() }
    @inline(never) func toggleFactor34() { factor34.toggle() }
    @inline(never) func toggleFactor35() { factor35.toggle() }
    @inline(never) func toggleFactor36() { factor36.toggle() }
    @inline(never) func toggleFactor37() { factor37.toggle() }
    @inline(never) func toggleFactor38() { factor38.toggle() }
    @inline(never) func toggleFactor39() { factor39.toggle() }

    /// Whether the input of state `index` is on.
    func isOn(_ index: Int) -> Bool {
        registration == .factors ? self[keyPath: Self.factorValues[index]] : flags & (1 << UInt64(index)) != 0
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

    init(states: ArraySlice<ControlState>, registration: ManyStatesControl.Registration) {
        self.states = Array(states)
        control = ManyStatesControl(states: self.states, registration: registration)
        bound = Array(self.states.indices.suffix(8))
        for (node, index) in zip(nodes, bound) {
            control.setValue(1, for: \.value, of: node, when: .containing(self.states[index]))
        }
        for i in 0..<16 {
            step(i)
            precondition(showsInputs, "the \(states.count)-state control (\(registration)) did not apply step \(i)")
        }
    }

    func step(_ i: Int) { control.flip(bound[i & 7]) }

    /// Whether each bound value shows its state's input.
    var showsInputs: Bool {
        zip(nodes, bound).allSatisfy { node, index in
            let on = control.isOn(index)
            return node.value == (on ? 1 : 0) && control.state.contains(states[index]) == on
        }
    }
}

extension Scenarios {
    /// Resolution and state changes with custom states in UIKit's range and in the extended
    /// range: the C resolver with the same rules, their custom bits moved above bit 32; and
    /// state changes end to end through controls of 8 UIKit states, 8 extended states and all
    /// 40, registered on factors and by predicates (see ``CustomStateToggle``).
    func customStates() {
        // The resolve scenario's rules and states at R=16, their four custom bits (16...19)
        // moved to four bits of the extended range.
        let moved: [UInt64: UInt64] = [1 << 16: 1 << 32, 1 << 17: 1 << 45, 1 << 18: 1 << 52, 1 << 19: 1 << 63]
        func move(_ bits: UInt64) -> UInt64 {
            moved.reduce(bits & ~0xF_0000) { bits & $1.key != 0 ? $0 | $1.value : $0 }
        }
        let uikitRules = makeRules(16, seed: 16)
        for (range, rules, states) in [
            ("application", uikitRules, self.states),
            (
                "extended", uikitRules.map { RuleSpec(mode: $0.mode, mask: move($0.mask), priority: $0.priority, value: $0.value) },
                self.states.map(move)
            ),
        ] {
            let table = Table()
            for rule in rules { table.set(1, 1, rule) }
            for state in states {
                precondition(
                    table.resolve(1, 1, state) == referenceResolve(rules, state) ?? CSR_NO_VALUE,
                    "the resolver disagrees with the reference in state \(state)")
            }
            report.run("custom-states", "resolver (warm)", ["rules": .int(16), "custom_bits": .string(range)]) { count in
                for i in 0..<count { consume(UInt64(table.resolve(1, 1, states[i & 15]))) }
            }
        }

        for registration in [ManyStatesControl.Registration.factors, .predicates] {
            for (range, states) in CustomStateToggle.shapes {
                let toggle = CustomStateToggle(states: states, registration: registration)
                report.run(
                    "custom-states", "Control custom-state toggle, \(registration) (end to end)",
                    ["custom_states": .int(states.count), "range": .string(range)],
                    note: registration == .factors ? "the flipped factor pushes its state" : "\(states.count) predicates derive the state"
                ) { count in
                    for i in 0..<count { toggle.step(i) }
                }
            }
        }
    }
}
