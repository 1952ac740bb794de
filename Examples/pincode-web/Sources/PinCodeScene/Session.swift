import StatefulControls

/// One page's connection: its own controls, the states the page was drawn in and the plain
/// properties it was last sent, so that each message is answered with what changed and nothing
/// else; and its inspector, off until the page turns it on.
///
/// The bound properties' values are not kept: the resolvers' diffs between the states the page
/// was drawn in and the states now name the ones a message changed. Nor are the resolvers'
/// caches, between messages: a page waits for its user most of the time, and a message's diffs,
/// a few bindings each, are computed again from the rules (`Control.releaseCaches()`).
@MainActor
public final class Session {
    /// The controls of this page.
    public let scene = WebScene()
    /// The page's state inspector (off until an `inspect` message turns it on).
    public let inspector: Inspector
    /// The plain properties (those no rule binds) as the page has them.
    private var renderedPlain: [String: PropertyValue] = [:]
    /// The applied state of each of ``WebScene/resolving`` when the page was last sent its values.
    private var shownStates: [ControlState] = []

    /// Creates the controls of a new page.
    public init() {
        let scene = scene
        inspector = Inspector(controls: scene.inspectable, naming: { scene.name(of: $0) })
    }

    /// The first message: every property.
    public func start() -> ServerMessage {
        let properties = scene.properties()
        renderedPlain = properties.filter { !WebScene.drawnBoundNames.contains($0.key) }
        shownStates = scene.resolving.map(\.appliedState)
        _ = scene.takeEvents()
        releaseCaches()
        return .snapshot(properties)
    }

    /// Applies one text frame from the page. Returns the update (none when nothing changed and
    /// no event was sent), then the inspector's report while it is on (none when it shows
    /// nothing new); or one error message for a refused frame, which changes nothing.
    public func handle(_ text: String) -> [ServerMessage] {
        defer { releaseCaches() }
        do {
            try apply(ClientMessage(json: text))
        } catch {
            return [.error(error.description)]
        }
        return [update(), inspector.report().map(ServerMessage.inspector)].compactMap { $0 }
    }

    /// Frees what the controls' resolvers cached while answering: the page is idle until its
    /// next message.
    private func releaseCaches() {
        for control in scene.resolving { control.releaseCaches() }
    }

    private func apply(_ message: ClientMessage) throws(MessageError) {
        switch message {
        case .pointer(let id, let phase, let location):
            guard let control = scene.controls[id] else {
                throw MessageError("unknown control \"\(id)\" (\(scene.controls.keys.sorted().joined(separator: ", ")))")
            }
            let touch = Touch(location: location, phase: phase)
            switch phase {
            case .began: control.touchesBegan(touch)
            case .moved: control.touchesMoved(touch)
            case .ended: control.touchesEnded(touch)
            case .cancelled: control.touchesCancelled(touch)
            }
        case .insertText(let text):
            try focusedInput().insertText(text)
        case .deleteBackward:
            try focusedInput().deleteBackward()
        case .inspect(let on, let control, let property):
            try inspector.apply(on: on, control: control, property: property)
        }
    }

    private func focusedInput() throws(MessageError) -> any KeyInput {
        guard let input = scene.focused else { throw MessageError("no control has the focus: tap the PIN code or the notes first") }
        return input
    }

    /// What the message changed, and the events sent meanwhile: the bound values the state
    /// changes wrote — each resolver's diff between the state the page was drawn in and its
    /// state now — and the plain properties (no binding) that differ from what the page has.
    private func update() -> ServerMessage? {
        var changed = Set<String>()
        for (control, shown) in zip(scene.resolving, shownStates) where control.appliedState != shown {
            for property in control.changedProperties(from: shown, to: control.appliedState) {
                let name = scene.name(of: property)
                if WebScene.drawnBoundNames.contains(name) { changed.insert(name) }
            }
        }
        shownStates = scene.resolving.map(\.appliedState)
        let properties = scene.properties()
        // The plain properties are the names `start()` kept; the bound ones are not there.
        for (name, value) in properties {
            guard let shown = renderedPlain[name], shown != value else { continue }
            changed.insert(name)
            renderedPlain[name] = value
        }
        let changes = properties.filter { changed.contains($0.key) }
        let events = scene.takeEvents()
        return changes.isEmpty && events.isEmpty ? nil : .update(changes: changes, events: events)
    }
}

/// The live sessions of a server, which owns them: a connection holds only its session's id,
/// so that the controls are created, used and freed on the main actor alone.
@MainActor
public final class SessionRegistry {
    private var sessions: [Int: Session] = [:]
    /// The sessions whose connection is open.
    public var live: Int { sessions.count }
    /// The sessions opened since the server started (the next one's id).
    public private(set) var opened = 0
    /// Called with each new session.
    public var onOpen: ((Session) -> Void)?

    /// Creates an empty registry.
    public init() {}

    /// Opens a session; returns its id and its first message, the snapshot.
    package func open() -> (id: Int, snapshot: ServerMessage) {
        let session = Session()
        let id = opened
        sessions[id] = session
        opened += 1
        onOpen?(session)
        return (id, session.start())
    }

    /// The answer of session `id` to a text frame (see ``Session/handle(_:)``).
    package func handle(_ text: String, in id: Int) -> [ServerMessage] {
        guard let session = sessions[id] else { preconditionFailure("SessionRegistry.handle: session \(id) is closed") }
        return session.handle(text)
    }

    /// Closes session `id`: its controls are freed now, on the main actor.
    package func close(_ id: Int) {
        sessions[id] = nil
    }
}
