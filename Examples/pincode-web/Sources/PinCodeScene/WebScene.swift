import Foundation
import StatefulControls

/// The controls of one page, owned by the server (one scene per WebSocket connection), and
/// their bindings: the terminal demo's PIN control and Submit button, plus a visitable button
/// and a text view with its placeholder. Every colour the page shows comes from a state-bound
/// value; the page draws the properties and never sees a state (the inspector panel does, from
/// the ``Inspector``'s reports).
@MainActor
public final class WebScene {
    /// Submit's custom application state, on once the code was submitted: allocated by name in
    /// UIKit's application range (`0x00FF0000`), as an app's own state is.
    public static let submitted: ControlState = {
        do {
            return try ControlState.allocate(named: "com.example.pincode-web.submitted", in: .application)
        } catch {
            fatalError("pincode-web: \(error)")  // only another library taking all eight bits could
        }
    }()

    /// The PIN-code control.
    public let pin = PinCodeControl(codeLength: WebScene.codeLength)
    /// The PIN code's digits: the PIN control's dots.
    static let codeLength = 4
    /// Submit: enabled only while the PIN code is complete and valid (a binding, not code).
    public let submit = Button(title: "Submit")
    /// A link-like button: blue until tapped, purple after.
    public let visit = VisitableButton(title: "Read the docs")
    /// Notes, with a placeholder shown while empty.
    public let notes: TextView
    /// What Submit's server-side action did.
    public let status = Label(text: "Nothing submitted")
    /// How many times Submit's action fired.
    public private(set) var submissions = 0
    /// The control that receives keys: the PIN control or the notes, the last one tapped.
    public private(set) var focused: (any KeyInput)?
    /// The events the controls sent since the last ``takeEvents()``, as `control event`.
    private var events: [String] = []

    /// The controls a client names, by id.
    public let controls: [String: Control]
    /// Every control with a resolver of its own (the named ones and the PIN control's dots):
    /// their diffs say which bound values a message changed.
    public let resolving: [Control]
    /// The names of the bound properties the page draws (``name(of:)`` of each), the same for
    /// every page: the rest of ``properties()`` are plain properties. A message's diffs name
    /// the bound ones it changed.
    public static let drawnBoundNames = Set(
        ["submit.isEnabled", "submit.titleColor", "submit.title", "visit.titleColor"]
            + (0..<codeLength).flatMap { index in ["fillColor", "borderColor", "borderWidth"].map { "pin.dots.\(index).\($0)" } })
    /// Every control with a resolver, by the id the inspector shows it under, in the order it
    /// lists them.
    public let inspectable: [(id: String, control: Control)]

    /// Creates the controls and binds them.
    public init() {
        // A center of its own: one page's notes never hear another page's.
        notes = TextView(
            placeholder: "Notes for the reviewer", notificationCenter: NotificationCenter(),
            frame: Rect(x: 0, y: 0, width: 320, height: 64))
        pin.frame = Rect(x: 0, y: 0, width: 240, height: 56)
        submit.frame = Rect(x: 0, y: 0, width: 160, height: 48)
        visit.frame = Rect(x: 0, y: 0, width: 200, height: 48)
        controls = ["pin": pin, "submit": submit, "visit": visit, "notes": notes]
        resolving = [pin, submit, visit, notes] + pin.dots
        inspectable =
            [("pin", pin)] + pin.dots.enumerated().map { ("pin.dots.\($0)", $1) } + [
                ("submit", submit), ("visit", visit), ("notes", notes),
            ]

        // As in the terminal demo: a dependency between controls, bound, not coded.
        submit.isEnabled = false
        pin.setValue(true, for: \.isEnabled, of: submit, when: .containing([.filled, .valid]))
        submit.setValue(Color.grey, for: \.titleColor, when: .containing(.disabled))
        submit.setValue(Color.green, for: \.titleColor, when: .containingNone(.disabled))
        // Pressed: darker while the touch is inside (the highlight follows the slop).
        submit.setValue(Color.darkGrey, for: \.titleColor, when: .containing(.highlighted))
        // Through `\Button.titleColor`, as the button binds its own colours, so that the rules
        // compete with either property access (README, "Where it runs").
        visit.setValue(Color.darkGrey, for: \Button.titleColor, of: visit, when: .containing(.highlighted, priority: 1100))

        // An app's own state: Submit is "submitted" once its action ran, and says so.
        submit.register(Self.submitted, named: "submitted once") { [unowned self] _ in submissions > 0 }
        submit.setValue("Submit again", for: \.title, when: .containing(Self.submitted))
        // A mistake left in for the inspector's lint to show: meant to turn Submit blue once
        // submitted, this rule's priority (400) is below the enabled colour's (containingNone,
        // 500) and the disabled one's (999), so it matches yet never wins.
        submit.setValue(Color.blue, for: \.titleColor, when: .containing(Self.submitted, priority: 400))

        submit.addAction(
            Action { [unowned self] _ in
                submissions += 1
                submit.updateState()  // the predicate of `submitted` reads the count
                status.text = "Submitted code \(submissions) (\(pin.code.count) digits)"
            }, for: .primaryActionTriggered)
        for (id, control) in controls {
            control.addAction(
                Action { [unowned self] action in
                    events.append("\(id) \(Self.name(of: action.event?.events ?? []))")
                }, for: .allEvents)
        }
        for input in [pin, notes] as [any KeyInput] {
            input.addAction(Action { [unowned self, unowned input] _ in focus(input) }, for: .touchUpInside)
        }
    }

    /// Gives the keys to `input`, taking the focus from the control that had it.
    public func focus(_ input: any KeyInput) {
        guard focused !== input else { return }
        focused?.isFocused = false
        input.isFocused = true
        focused = input
    }

    /// The events sent since the last call, oldest first.
    public func takeEvents() -> [String] {
        defer { events = [] }
        return events
    }

    /// What the page draws: every bound value (and the few plain properties it shows), by
    /// `control.property` name. The page renders from these alone.
    public func properties() -> [String: PropertyValue] {
        var properties: [String: PropertyValue] = [
            "submit.title": .string(submit.title),
            "submit.titleColor": .color(submit.titleColor),
            "submit.isEnabled": .bool(submit.isEnabled),
            "submit.isHighlighted": .bool(submit.isHighlighted),
            "visit.title": .string(visit.title),
            "visit.titleColor": .color(visit.titleColor),
            "visit.isHighlighted": .bool(visit.isHighlighted),
            "pin.digits": .number(Double(pin.code.count)),
            "notes.text": .string(notes.text),
            "notes.isFocused": .bool(notes.isFocused),
            "notes.placeholder": .string(notes.placeholder),
            "notes.placeholderLabel.isHidden": .bool(notes.placeholderLabel.isHidden),
            "status.text": .string(status.text),
        ]
        for (index, dot) in pin.dots.enumerated() {
            properties["pin.dots.\(index).fillColor"] = .color(dot.fillColor)
            properties["pin.dots.\(index).borderColor"] = .color(dot.borderColor)
            properties["pin.dots.\(index).borderWidth"] = .number(dot.borderWidth)
        }
        for (id, control) in controls {
            properties["\(id).width"] = .number(control.frame.size.width)
            properties["\(id).height"] = .number(control.frame.size.height)
        }
        return properties
    }

    /// The name of a bound property, for the page and the inspector: its target's id and the
    /// property's name, as the page names what it draws (`pin.dots.0.fillColor`; see
    /// ``drawnBoundNames``). The names of the key paths are listed here: a key path to a
    /// computed or overridable property (`isEnabled`, `titleColor`) does not describe itself by
    /// name.
    public func name(of property: BoundProperty) -> String {
        // A search of the 8 controls, not a dictionary: each page would hold one.
        let target = inspectable.first { $0.control === property.target }?.id ?? "\(type(of: property.target))"
        return "\(target).\(Self.keyPathNames[property.keyPath] ?? "\(property.keyPath)")"
    }

    /// The names of the key paths the scene and its components bind.
    private static let keyPathNames: [AnyKeyPath: String] = [
        \Button.isEnabled: "isEnabled", \Button.title: "title", \Button.titleColor: "titleColor",
        \PinDot.isHighlighted: "isHighlighted", \PinDot.isEnabled: "isEnabled", \PinDot.isValid: "isValid",
        \PinDot.isInvalid: "isInvalid", \PinDot.fillColor: "fillColor", \PinDot.borderColor: "borderColor",
        \PinDot.borderWidth: "borderWidth",
    ]

    /// An event's name, as the library's description gives it, with the PIN control's own.
    static func name(of events: ControlEvents) -> String {
        events == .typeComplete ? "typeComplete" : events.description
    }
}

/// A control that takes keys, as UIKit's `UIKeyInput`.
@MainActor
public protocol KeyInput: Control {
    /// Types `text`.
    func insertText(_ text: String)
    /// Deletes backward, as the delete key does.
    func deleteBackward()
}

extension PinCodeControl: KeyInput {}
extension TextView: KeyInput {}
