import Foundation
import Testing
import StatefulControls

/// Forty named custom states in one process — UIKit's eight and the 32 of the extended range —
/// driven through one control: each in all six matching modes, in a dependency, in explain and
/// in the lint, and the allocator's error once all forty are taken.
///
/// Runs in a child process (an exit test): it takes every application bit, which the other
/// tests share.
@Suite("Forty custom states")
struct FortyCustomStatesTests {
    @Test func fortyStatesDriveOneControlInEveryMode() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            try await MainActor.run { try FortyCustomStatesTests.driveFortyStates() }
        }
        #expect(String(decoding: result?.standardErrorContent ?? [], as: UTF8.self) == "")
    }

    /// A form field with forty custom states: the first pushed by its factor, the last read
    /// from a Bool property by key path, the others from `flags` by predicates.
    @MainActor
    final class Field: Control {
        @StateFactor var flags = [Bool](repeating: false, count: 40)
        @StateFactor var isRequired = false
        @StateFactor var isArchived = false

        func registerRequired(_ state: ControlState) { register(state, for: \._isRequired) }
    }

    /// A control whose custom state (an extended one) follows a value bound by the field.
    @MainActor
    final class Badge: Control {
        @StateFactor var isAlerting = false
        let label = Label()
    }

    /// One property per matching mode, bound to one of the forty states.
    final class Probe {
        var exactly = 0, containing = 0, notContaining = 0, containingAny = 0, containingNone = 0, custom = 0
    }

    final class Label {
        var text = ""
    }

    @MainActor
    static func driveFortyStates() throws {
        let names = (0..<40).map { "com.example.field.state\($0)" }
        let states = try names.map { try ControlState.allocate(named: $0) }
        checkInChild(states[..<8].reduce(ControlState()) { $0.union($1) } == .application, "the first eight are UIKit's")
        checkInChild(states[8...].reduce(ControlState()) { $0.union($1) } == .extendedApplication, "the next 32 are the extended range")
        do throws(CustomStateError) {
            _ = try ControlState.allocate(named: "com.example.field.state40")
            checkInChild(false, "a 41st state is refused")
        } catch {
            checkInChild(
                error == .rangeFull(name: "com.example.field.state40", range: [.application, .extendedApplication], holders: names),
                "the error names the forty holders: \(error)")
        }
        let all = states.reduce(ControlState()) { $0.union($1) }
        checkInChild(all.description == names.joined(separator: " | "), "the description names all forty: \(all)")

        let field = Field()
        field.registerRequired(states[0])
        field.register(states[39], whenever: \.isArchived)
        for index in 1..<39 { field.register(states[index], named: "flag \(index)") { $0.flags[index] } }

        let probes = (0..<40).map { _ in Probe() }
        let descriptors = states.indices.map { index -> [(ReferenceWritableKeyPath<Probe, Int>, StateDescriptor)] in
            let state = states[index]
            return [
                (\.exactly, .exactly(state)), (\.containing, .containing(state)), (\.notContaining, .notContaining(state)),
                (\.containingAny, .containingAny([state, states[(index + 1) % 40]])), (\.containingNone, .containingNone(state)),
                (\.custom, .custom("has state \(index)", priority: 900) { $0.contains(state) }),
            ]
        }
        for (probe, rules) in zip(probes, descriptors) {
            for (keyPath, descriptor) in rules { field.setValue(1, for: keyPath, of: probe, when: descriptor) }
        }

        // The dependency: state 30 on the field raises the badge's extended state 38.
        let badge = Badge()
        badge.register(states[38], whenever: \.isAlerting)
        badge.setValue("alert", for: \.text, of: badge.label, when: .containing(states[38]))
        field.setValue(true, for: \.isAlerting, of: badge, when: .containing(states[30]))

        /// Every bound property equals what its descriptor says for the field's state.
        func checkEveryProperty(_ step: String) {
            let state = field.state
            checkInChild(field.appliedState == state, "\(step): applied \(field.appliedState), state \(state)")
            for (probe, rules) in zip(probes, descriptors) {
                for (keyPath, descriptor) in rules {
                    let expected = descriptor.matches(state) ? 1 : 0
                    checkInChild(
                        probe[keyPath: keyPath] == expected, "\(step): \(descriptor) in [\(state)] gave \(probe[keyPath: keyPath])")
                }
            }
            let alerting = state.contains(states[30])
            checkInChild(
                badge.isAlerting == alerting && badge.state.contains(states[38]) == alerting
                    && badge.label.text == (alerting ? "alert" : ""), "\(step): the badge follows state 30: \(badge.state)")
        }

        checkEveryProperty("initially")
        // Each state alone (exactly matches), then random flips of several at once.
        for index in 0..<40 {
            field.flags = (0..<40).map { $0 == index && (1..<39).contains(index) }
            field.isRequired = index == 0
            field.isArchived = index == 39
            checkInChild(field.state == states[index], "state \(index) alone: \(field.state)")
            checkEveryProperty("state \(index) alone")
        }
        var seed: UInt64 = 40
        for step in 0..<200 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let index = Int(seed >> 33) % 40
            switch index {
            case 0: field.isRequired.toggle()
            case 39: field.isArchived.toggle()
            default: field.flags[index].toggle()
            }
            checkEveryProperty("flip \(step) of state \(index)")
        }

        // Explain: the winner for an extended state and a UIKit one.
        field.flags = (0..<40).map { $0 == 35 || $0 == 3 }
        field.isRequired = false
        field.isArchived = false
        let extended = field.explain(\.containing, of: probes[35])
        checkInChild(
            extended.state == [states[3], states[35]] && extended.winner?.descriptor == .containing(states[35])
                && extended.value == 1, "explain of state 35: \(extended)")
        let uikit = field.explain(\.exactly, of: probes[3])
        checkInChild(uikit.winner == nil && uikit.value == 0, "exactly(state 3) does not match with state 35 on: \(uikit)")

        // Lint over the states the field reaches in this form: states 20 and 21 only.
        let reachable: [ControlState] = [[], states[20], [states[20], states[21]]]
        let diagnostics = field.lintRules(reachableStates: reachable)
        for index in [5, 39] {
            let never = diagnostics.filter { $0.problem == .neverMatches && $0.targetIdentifier == ObjectIdentifier(probes[index]) }
            let expected: Set<StateDescriptor> = [
                .exactly(states[index]), .containing(states[index]),
                .containingAny([states[index], states[(index + 1) % 40]]),
                .custom("has state \(index)", priority: 900) { _ in true },
            ]
            checkInChild(
                Set(never.compactMap(\.descriptor)) == expected,
                "state \(index) is never reached: \(never)")
        }
        let twenty = diagnostics.filter { $0.targetIdentifier == ObjectIdentifier(probes[20]) }
        checkInChild(twenty.isEmpty, "every rule on state 20 takes effect: \(twenty)")
    }
}
