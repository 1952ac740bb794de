import StatefulControls

/// The demo's controls and their bindings: a PIN-code control and a Submit button enabled only
/// while the code is complete and valid. Every visual value comes from state-bound rules.
@MainActor
final class DemoScene {
    let pin: PinCodeControl
    let submit = Button(title: "Submit")
    let log = EventLog()

    init(codeLength: Int = 4) {
        pin = PinCodeControl(codeLength: codeLength)
        submit.isEnabled = false
        // A dependency between controls: bound, not coded.
        pin.setValue(true, for: \.isEnabled, of: submit, when: .containing([.filled, .valid]))
        submit.setValues(Self.submitTitle, for: \.titleColor)
        // The event log hears the controls through target–action.
        pin.addTarget(log, action: .record, for: [.valueChanged, .typeComplete])
        submit.addTarget(log, action: .record, for: [.primaryActionTriggered])
    }

    /// Submit's title colour: the first entry that matches wins.
    static let submitTitle: StateValues<Color> = [.containing(.disabled): .grey, .always: .green]

    /// Applies one key; returns false for quit.
    func handle(_ key: Key) -> Bool {
        log.startFrame()
        switch key {
        case .digit(let digit): pin.insertText(String(digit))
        case .backspace: pin.deleteBackward()
        case .clear: pin.clear()
        case .toggleDisabled: pin.isEnabled.toggle()
        case .toggleHighlight: pin.isHighlighted.toggle()
        case .submit: submit.sendActions(for: .primaryActionTriggered)
        case .quit: return false
        case .ignored: break
        }
        return true
    }
}

/// Records the events the controls send, frame by frame.
@MainActor
final class EventLog {
    private(set) var frameEvents: [String] = []
    private(set) var all: [String] = []

    func startFrame() { frameEvents = [] }

    func record(_ sender: Control, _ event: Event) {
        let name = event.events == .typeComplete ? "typeComplete" : event.events.description
        let entry = "\(name) from \(type(of: sender))"
        frameEvents.append(entry)
        all.append(entry)
    }
}

extension Selector where Target == EventLog {
    static let record = Selector("record", EventLog.record)
}

/// A key of the demo.
enum Key: Equatable {
    case digit(Int), backspace, clear, toggleDisabled, toggleHighlight, submit, quit, ignored

    /// The key a typed byte stands for.
    init(byte: UInt8) {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): self = .digit(Int(byte - UInt8(ascii: "0")))
        case 0x7F, 0x08: self = .backspace
        case UInt8(ascii: "c"): self = .clear
        case UInt8(ascii: "d"): self = .toggleDisabled
        case UInt8(ascii: "h"): self = .toggleHighlight
        case UInt8(ascii: "s"), 0x0D, 0x0A: self = .submit
        case UInt8(ascii: "q"), 0x04: self = .quit
        default: self = .ignored
        }
    }

    /// The keys of a script: characters as typed, with `\b` for backspace, `\n` for submit
    /// and `\\` for a backslash.
    static func parse(script: String) throws -> [(label: String, key: Key)] {
        var keys: [(String, Key)] = []
        var characters = script.makeIterator()
        while let character = characters.next() {
            if character == "\\" {
                guard let escaped = characters.next() else { throw ScriptError(message: "script ends with a lone backslash") }
                switch escaped {
                case "b": keys.append(("\\b", .backspace))
                case "n": keys.append(("\\n", .submit))
                case "\\": keys.append(("\\\\", .ignored))
                default: throw ScriptError(message: "unknown escape \\\(escaped) in script (use \\b, \\n or \\\\)")
                }
            } else {
                keys.append((String(character), Key(byte: character.asciiValue ?? 0)))
            }
        }
        return keys
    }
}

struct ScriptError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
