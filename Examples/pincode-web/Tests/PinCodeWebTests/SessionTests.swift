import PinCodeScene
import PinCodeWeb
import StatefulControls
import Testing

/// A session driven by the JSON text frames a page sends, without a network.
@MainActor
struct Page {
    let session = Session()
    /// What the page would have drawn: the snapshot with every update applied.
    private(set) var properties: [String: PropertyValue] = [:]
    private(set) var events: [String] = []
    /// Every inspector report received.
    private(set) var reports: [InspectorReport] = []
    /// The types of the replies to the last frame, in order (`update`, `inspector`).
    private(set) var replies: [String] = []

    init() {
        guard case .snapshot(let all) = session.start() else { fatalError("the first message is the snapshot") }
        properties = all
    }

    /// Sends one frame; returns the update's changes (empty for no update), or throws the error
    /// message.
    @discardableResult
    mutating func send(_ json: String) throws -> [String: PropertyValue] {
        var changes: [String: PropertyValue] = [:]
        replies = []
        for reply in session.handle(json) {
            switch reply {
            case .update(let changed, let events):
                properties.merge(changed) { $1 }
                self.events += events
                changes = changed
                replies.append("update")
            case .inspector(let report):
                reports.append(report)
                replies.append("inspector")
            case .error(let message): throw PageError(message: message)
            case .snapshot: Issue.record("a snapshot after the first message")
            }
        }
        return changes
    }

    mutating func pointer(_ control: String, _ phase: String, _ x: Double, _ y: Double = 20) throws {
        try send(#"{"type":"pointer","control":"\#(control)","phase":"\#(phase)","x":\#(x),"y":\#(y)}"#)
    }

    mutating func tap(_ control: String) throws {
        try pointer(control, "down", 20)
        try pointer(control, "up", 20)
    }

    mutating func type(_ text: String) throws {
        for character in text { try send(#"{"type":"insertText","text":"\#(character)"}"#) }
    }

    func color(_ name: String) -> String? {
        guard case .color(let color)? = properties[name] else { return nil }
        return color.name
    }
}

struct PageError: Error, Equatable {
    let message: String
}

@MainActor
@Suite("A page's session: bindings, touches, keys, diffs")
struct SessionTests {
    @Test func aValidCodeEnablesSubmitThroughTheBinding() throws {
        var page = Page()
        #expect(page.properties["submit.isEnabled"] == .bool(false))
        #expect(page.color("submit.titleColor") == "grey")
        try page.tap("pin")
        try page.type("135")
        #expect(page.properties["submit.isEnabled"] == .bool(false))
        let changes = try page.send(#"{"type":"insertText","text":"7"}"#)
        #expect(changes["submit.isEnabled"] == .bool(true))
        #expect(page.color("submit.titleColor") == "green")
        #expect((0..<4).allSatisfy { page.color("pin.dots.\($0).fillColor") == "green" })
        #expect(page.events.contains("pin typeComplete"))
    }

    @Test func anUpdateHoldsOnlyWhatChanged() throws {
        var page = Page()
        try page.tap("pin")
        let changes = try page.send(#"{"type":"insertText","text":"1"}"#)
        // The first dot is filled (blue: the focused PIN highlights its dots); nothing else moved.
        #expect(Set(changes.keys) == ["pin.dots.0.fillColor", "pin.digits"] && page.color("pin.dots.0.fillColor") == "blue")
        #expect(try page.send(#"{"type":"pointer","control":"visit","phase":"move","x":1,"y":1}"#).isEmpty)
    }

    @Test func thePageFollowsTheScenesFromTheDiffsAlone() throws {
        var page = Page()
        // Every bound property the page draws is drawn, and bound: a resolver's diff names it.
        let scene = page.session.scene
        #expect(WebScene.drawnBoundNames.isSubset(of: page.properties.keys))
        #expect(WebScene.drawnBoundNames.isSubset(of: scene.resolving.flatMap(\.boundProperties).map(scene.name(of:))))
        let frames =
            [
                #"{"type":"pointer","control":"pin","phase":"down","x":5,"y":5}"#,
                #"{"type":"pointer","control":"pin","phase":"up","x":5,"y":5}"#,
            ]
            + "1357".map { #"{"type":"insertText","text":"\#($0)"}"# }
            + [
                #"{"type":"pointer","control":"submit","phase":"down","x":10,"y":10}"#,
                #"{"type":"pointer","control":"submit","phase":"move","x":400,"y":10}"#,
                #"{"type":"pointer","control":"submit","phase":"move","x":10,"y":10}"#,
                #"{"type":"pointer","control":"submit","phase":"up","x":10,"y":10}"#,
                #"{"type":"deleteBackward"}"#, #"{"type":"insertText","text":"1"}"#,
                #"{"type":"pointer","control":"visit","phase":"down","x":10,"y":10}"#,
                #"{"type":"pointer","control":"visit","phase":"up","x":10,"y":10}"#,
            ]
        for frame in frames {
            try page.send(frame)
            // The bound values arrive from the resolvers' diffs, the rest by comparison: either
            // way the page ends where the controls are.
            #expect(page.properties == page.session.scene.properties(), "after \(frame)")
        }
        #expect(page.color("visit.titleColor") == "purple" && page.properties["pin.digits"] == .number(4))
    }

    @Test func anInvalidCodeKeepsSubmitDisabledAndPaintsTheDotsRed() throws {
        var page = Page()
        try page.tap("pin")
        try page.type("1234")
        #expect(page.properties["submit.isEnabled"] == .bool(false))
        #expect(page.color("pin.dots.3.fillColor") == "red" && page.color("pin.dots.3.borderColor") == "red")
        try page.send(#"{"type":"deleteBackward"}"#)
        try page.type("7")
        #expect(page.properties["submit.isEnabled"] == .bool(true))
    }

    @Test func submitFiresItsServerSideActionOnlyWhenReleasedInside() throws {
        var page = Page()
        try page.tap("submit")  // disabled: no tracking, no action
        #expect(page.session.scene.submissions == 0 && !page.events.contains { $0.hasPrefix("submit") })
        try page.tap("pin")
        try page.type("1357")
        try page.pointer("submit", "down", 80)
        #expect(page.properties["submit.isHighlighted"] == .bool(true) && page.color("submit.titleColor") == "darkGrey")
        try page.pointer("submit", "move", 80, 100)  // 52 below a 48-high button: inside the 70-point slop
        #expect(page.properties["submit.isHighlighted"] == .bool(true))
        try page.pointer("submit", "move", 80, 200)  // past the slop: exit
        #expect(page.properties["submit.isHighlighted"] == .bool(false) && page.color("submit.titleColor") == "green")
        try page.pointer("submit", "up", 80, 200)
        #expect(page.events.suffix(2) == ["submit touchDragExit", "submit touchUpOutside"])
        #expect(page.session.scene.submissions == 0 && page.properties["status.text"] == .string("Nothing submitted"))
        // Out and back in: the release inside fires the action.
        try page.pointer("submit", "down", 80)
        try page.pointer("submit", "move", 80, 300)
        try page.pointer("submit", "move", 80, 30)
        try page.pointer("submit", "up", 80, 30)
        #expect(page.events.suffix(3) == ["submit touchDragEnter", "submit touchUpInside", "submit primaryActionTriggered"])
        #expect(page.properties["status.text"] == .string("Submitted code 1 (4 digits)"))
    }

    @Test func aTapVisitsTheVisitableButton() throws {
        var page = Page()
        #expect(page.color("visit.titleColor") == "blue")
        try page.pointer("visit", "down", 20)
        try page.pointer("visit", "cancel", 20)
        #expect(page.color("visit.titleColor") == "blue")
        try page.tap("visit")
        #expect(page.color("visit.titleColor") == "purple")
    }

    @Test func theNotesPlaceholderHidesWhileThereIsText() throws {
        var page = Page()
        #expect(page.properties["notes.placeholderLabel.isHidden"] == .bool(false))
        try page.tap("notes")
        #expect(page.properties["notes.isFocused"] == .bool(true))
        try page.type("ok")
        #expect(page.properties["notes.text"] == .string("ok") && page.properties["notes.placeholderLabel.isHidden"] == .bool(true))
        try page.send(#"{"type":"deleteBackward"}"#)
        try page.send(#"{"type":"deleteBackward"}"#)
        #expect(page.properties["notes.placeholderLabel.isHidden"] == .bool(false))
    }

    @Test(arguments: [
        (#"{"type":"pointer","control":"slider","phase":"down","x":1,"y":1}"#, "unknown control \"slider\" (notes, pin, submit, visit)"),
        (#"{"type":"pointer","control":"pin""#, "malformed message: expected a JSON object with a string \"type\""),
        ("not json", "malformed message: expected a JSON object with a string \"type\""),
        (
            #"{"type":"pointer","control":"pin","phase":"down","x":NaN,"y":1}"#,
            "malformed message: expected a JSON object with a string \"type\""
        ),
        (
            #"{"type":"pointer","control":"pin","phase":"down","x":1e300,"y":1}"#,
            "pointer: coordinates (1e+300, 1.0) out of range (at most 100000 from the control)"
        ),
        (
            #"{"type":"pointer","control":"pin","phase":"down","x":1,"y":-1e6}"#,
            "pointer: coordinates (1.0, -1000000.0) out of range (at most 100000 from the control)"
        ),
        (#"{"type":"pointer","control":"pin","phase":"hover","x":1,"y":1}"#, "pointer: \"phase\" must be one of down, move, up, cancel"),
        (#"{"type":"pointer","control":"pin","phase":"down"}"#, "pointer: missing \"x\" or \"y\""),
        (#"{"type":"insertText","text":"1"}"#, "no control has the focus: tap the PIN code or the notes first"),
        (#"{"type":"insertText","text":""}"#, "insertText: \"text\" must hold 1 to 64 characters"),
        (#"{"type":"launch"}"#, "unknown message type \"launch\" (pointer, insertText, deleteBackward or inspect)"),
        (#"{"type":"pointer","control":"pin","phase":"down","x":"1","y":1}"#, "pointer: \"x\" must be a number"),
    ])
    func aBadMessageGetsAnErrorAndChangesNothing(json: String, error: String) throws {
        var page = Page()
        let before = page.properties
        #expect(throws: PageError(message: error)) { try page.send(json) }
        #expect(page.properties == before && page.session.scene.takeEvents().isEmpty)
    }

    @Test func coordinatesTooLargeForADoubleAreRefused() throws {
        var page = Page()
        #expect(throws: PageError.self) { try page.send(#"{"type":"pointer","control":"pin","phase":"down","x":1e400,"y":1}"#) }
        #expect(!page.session.scene.pin.isTracking)
    }
}
