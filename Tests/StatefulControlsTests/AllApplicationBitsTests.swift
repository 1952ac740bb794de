import Foundation
import Testing
import StatefulControls

/// The application ranges are wholly the app's: with all 8 UIKit-compatible custom states and 4
/// custom events taken first, every component still works, and none of its states is an app
/// state.
///
/// Runs in a child process (an exit test) so that taking every bit leaves the other tests'
/// allocations alone.
@Suite("Components leave the application ranges to the app")
struct AllApplicationBitsTests {
    @Test func everyComponentWorksWithEveryApplicationBitTaken() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            try await MainActor.run { try AllApplicationBitsTests.driveEveryComponent() }
        }
        #expect(String(decoding: result?.standardErrorContent ?? [], as: UTF8.self) == "")
    }

    @MainActor
    static func driveEveryComponent() throws {
        let appStates = try (0..<8).map { try ControlState.allocate(named: "com.example.app.state\($0)", in: .application) }
        let appEvents = (0..<4).map { ControlEvents.application(1 << (24 + $0)) }
        let allApp = appStates.reduce(ControlState()) { $0.union($1) }
        checkInChild(allApp == .application, "the app got all 8 application states")
        checkInChild(fails { try ControlState.allocate(named: "com.example.app.ninth", in: .application) }, "a ninth state is refused")
        let componentStates: [ControlState] = [.visited, .filled, .valid, .invalid]
        for state in componentStates {
            checkInChild(
                state.isDisjoint(with: allApp) && ControlState.reserved.isSuperset(of: state),
                "\(state) is in the reserved range, not the app's")
        }
        checkInChild(ControlEvents.typeComplete.isDisjoint(with: .applicationReserved), "typeComplete is the framework's")

        // PIN typing, valid then invalid, with an app event sent alongside.
        let pin = PinCodeControl()
        var sent: [ControlEvents] = []
        pin.addAction(Action { _ in sent.append(.typeComplete) }, for: .typeComplete)
        pin.addAction(Action { _ in sent.append(appEvents[0]) }, for: appEvents[0])
        pin.insertText("1357")
        checkInChild(pin.state == [.filled, .valid], "a valid code: \(pin.state)")
        checkInChild(pin.dots.allSatisfy { $0.fillColor == .green }, "valid dots are green")
        pin.sendActions(for: appEvents[0])
        checkInChild(sent == [.typeComplete, appEvents[0]], "events: \(sent)")
        pin.clear()
        pin.insertText("1111")
        checkInChild(pin.state == [.filled, .invalid], "an invalid code: \(pin.state)")
        checkInChild(pin.dots.allSatisfy { $0.fillColor == .red }, "invalid dots are red")

        // A visited button.
        let button = VisitableButton(title: "Docs")
        button.touchesBegan(Touch(location: Point(x: 5, y: 5), phase: .began))
        button.touchesEnded(Touch(location: Point(x: 5, y: 5), phase: .ended))
        checkInChild(button.state == .visited && button.titleColor == .purple, "a visited button: \(button.state)")

        // A text view and its placeholder.
        let textView = TextView(placeholder: "Name", notificationCenter: NotificationCenter())
        textView.insertText("Ada")
        checkInChild(textView.placeholderLabel.isHidden, "the placeholder hides with text")
        textView.text = ""
        checkInChild(!textView.placeholderLabel.isHidden, "the placeholder shows without text")

        // An app control registering app states beside the components' states.
        let control = Control()
        control.register(appStates[7], whenever: \.isSelected)
        control.isSelected = true
        checkInChild(control.state == [.selected, appStates[7]], "an app state on a control: \(control.state)")
    }

    static func fails(_ body: () throws -> ControlState) -> Bool {
        do { _ = try body(); return false } catch { return true }
    }
}
