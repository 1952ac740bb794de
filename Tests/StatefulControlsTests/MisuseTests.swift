import CJudyFaultInjection
import Foundation
import Testing
import StatefulControls

/// Misuse stops the program with a message that names the mistake and the fix. Each test runs
/// the misuse in a child process (an exit test) and reads what it printed.
@Suite("Misuse stops with a message")
struct MisuseTests {
    /// What the child process printed to standard error.
    static func stderr(_ result: ExitTest.Result?) -> String {
        String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    }

    @Test func registeringAStateOutsideTheApplicationRange() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            await MainActor.run { Control().register(.selected, whenever: \.isFocused, named: "focus") }
        }
        #expect(
            Self.stderr(result).contains(
                "Control.register: state 0x4 for focus lies outside the application ranges 0x00FF0000 and 0xFFFFFFFF00000000; allocate custom states with ControlState.allocate(named:in:)"
            ))
    }

    @Test func registeringOneStateTwiceOnAControl() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let state = try ControlState.allocate(named: "com.example.misuse.twice")
            await MainActor.run {
                let control = Control()
                control.register(state, whenever: \.isSelected, named: "selection")
                control.register(state, whenever: \.isFocused, named: "focus")
            }
        }
        #expect(
            Self.stderr(result).contains(
                "Control.register: state [com.example.misuse.twice] for focus is already registered on this control for selection; register each state once per control"
            ))
    }

    /// Not a misuse, but the same documented outcome: `Control.setValue` cannot throw, so a
    /// resolver out of memory stops the program with a message, as Swift stops on a failed
    /// allocation (`StateResolver.setValue` throws it instead). A factor change never runs out:
    /// a diff without memory is computed pair by pair.
    @Test func aControlOutOfMemoryStopsWithAMessage() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            await MainActor.run {
                let control = Control(), label = Label()
                control.setValue("selected", for: \.text, of: label, when: .containing(.selected))
                fault_injection_arm(0, true)
                control.isSelected = true
                guard label.text == "selected" else { return }  // the test fails: the process exits normally
                control.setValue("focused", for: \.text, of: label, when: .containing(.focused))
            }
        }
        #expect(
            Self.stderr(result).contains(
                "Control.setValue(_:for:of:when:): the state resolver ran out of memory; the rule table is unchanged"))
    }

    @Test func registeringAnEmptyState() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            await MainActor.run { Control().register([], named: "nothing") { _ in true } }
        }
        #expect(Self.stderr(result).contains("an empty state for nothing; register a state from ControlState.allocate(named:in:)"))
    }

    @Test func anEventOutsideTheApplicationRange() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = ControlEvents.application(1 << 12)
        }
        #expect(
            Self.stderr(result).contains(
                "ControlEvents.application(0x1000): a custom event needs bits of the application range 0x0F000000 only"))
    }

    @Test func anEmptyEvent() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = ControlEvents.application(0)
        }
        #expect(Self.stderr(result).contains("ControlEvents.application(0x0)"))
    }

    @Test func committingWithoutBeginning() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            await MainActor.run { Control().commitTransition() }
        }
        #expect(
            Self.stderr(result).contains(
                "Control.commitTransition() without beginTransition(); pair each beginTransition() with one commit or end"))
    }

    @Test func endingWithoutBeginning() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            await MainActor.run {
                let control = Control()
                control.beginTransition()
                control.endTransition()
                control.endTransition()
            }
        }
        #expect(Self.stderr(result).contains("Control.endTransition() without beginTransition()"))
    }

    @Test func anEmptyActionIdentifier() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            await MainActor.run { _ = Action(identifier: "") { _ in } }
        }
        #expect(Self.stderr(result).contains("Action(identifier: \"\"): an action identifier names the action"))
    }

    @Test func anEmptySelectorName() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Selector<Control>("", Control.updateState)
        }
        #expect(Self.stderr(result).contains("Selector(\"\", …): a selector's name identifies its action"))
    }

    @Test func anEmptyStateName() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = try ControlState.allocate(named: "")
        }
        #expect(Self.stderr(result).contains("ControlState.allocate(named:in:) with an empty name; name the state in reverse-DNS form"))
    }

    @Test func aStateRangeOutsideTheApplicationRanges() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = try ControlState.allocate(named: "com.example.misuse.reserved", in: .reserved)
        }
        #expect(
            Self.stderr(result).contains(
                "ControlState.allocate(named: \"com.example.misuse.reserved\", in: 0xFF000000): the range must be bits of the application ranges 0x00FF0000 and 0xFFFFFFFF00000000, such as ControlState.extendedApplication"
            ))
    }

    @Test func listingTheCombinationsOfTooManyFactors() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let states = try (0..<17).map { try ControlState.allocate(named: "com.example.misuse.factor\($0)") }
            await MainActor.run {
                let control = Control()
                for state in states { control.register(state) { _ in false } }
                _ = control.lintRules()
            }
        }
        #expect(
            Self.stderr(result).contains(
                "Control.reachableStates: 21 factors (4 built-in, 17 custom states) make 2^21 states, too many to list; pass the states the control really reaches to lintRules(reachableStates:)"
            ))
    }

    @Test func aFactorPushingTwoStatesForOneValue() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let first = try ControlState.allocate(named: "com.example.misuse.first")
            let second = try ControlState.allocate(named: "com.example.misuse.second")
            await MainActor.run { _ = TwicePushed(first, second) }
        }
        #expect(
            Self.stderr(result).contains(
                "TwicePushed.register: the factor isOn pushes [com.example.misuse.first] already while true; a factor pushes one state while true and one while false"
            ))
    }

    @Test func aPinCodeWithoutDigits() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            await MainActor.run { _ = PinCodeControl(codeLength: 0) }
        }
        #expect(Self.stderr(result).contains("PinCodeControl(codeLength: 0): a PIN code needs at least one digit"))
    }
}

/// Registers one factor for two states while true: a misuse.
final class TwicePushed: Control {
    @StateFactor var isOn = false

    init(_ first: ControlState, _ second: ControlState) {
        super.init()
        register(first, for: \._isOn, named: "isOn")
        register(second, for: \._isOn, named: "isOn")
    }
}
