import Foundation
import StatefulControls

/// A property's value as the page receives it.
public enum PropertyValue: Equatable, Sendable, Encodable {
    /// A JSON boolean.
    case bool(Bool)
    /// A JSON number (always finite: sizes, widths, counts).
    case number(Double)
    /// A JSON string.
    case string(String)
    /// Sent as `{"name": "green", "rgb": "#30d158"}` (`"rgb": null` for clear).
    case color(Color)

    /// Encodes the bare value, not a tagged union.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .color(let color): try container.encode(EncodedColor(color))
        }
    }

    private struct EncodedColor: Encodable {
        let name: String
        let rgb: String?
        init(_ color: Color) {
            name = color.name
            rgb = color.isClear ? nil : String(format: "#%02x%02x%02x", color.red, color.green, color.blue)
        }
    }
}

/// A message from the page, decoded and checked.
public enum ClientMessage: Equatable, Sendable {
    /// A pointer event on a control, in the control's coordinates.
    case pointer(control: String, phase: Touch.Phase, location: Point)
    /// Typed text, for the focused control.
    case insertText(String)
    /// The delete key, for the focused control.
    case deleteBackward
    /// Turns the page's inspector on or off; selects the control it details and the property of
    /// its state table, when given (see ``Inspector/apply(on:control:property:)``).
    case inspect(on: Bool, control: String?, property: String?)

    /// Coordinates further than this from a control are refused (a page is not that large).
    public static let coordinateLimit = 100_000.0
    /// The longest text one message may type.
    public static let textLimit = 64

    /// The message's JSON fields: `type` says which of the others it needs.
    private struct Fields: Decodable {
        let type: String
        let control: String?
        let phase: String?
        let x: Double?
        let y: Double?
        let text: String?
        let on: Bool?
        let property: String?
        /// The fields present with a value of another JSON type than theirs.
        let mistyped: Set<String>

        private enum Key: String, CodingKey { case type, control, phase, x, y, text, on, property }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            var mistyped = Set<String>()
            func field<Value: Decodable>(_ key: Key) -> Value? {
                do { return try container.decodeIfPresent(Value.self, forKey: key) } catch {
                    mistyped.insert(key.rawValue)
                    return nil
                }
            }
            type = try container.decode(String.self, forKey: .type)
            (control, phase, text, property) = (field(.control), field(.phase), field(.text), field(.property))
            (x, y, on) = (field(.x), field(.y), field(.on))
            self.mistyped = mistyped
        }

        /// Throws when a field `type` uses has a value of another JSON type.
        func check(_ kinds: KeyValuePairs<String, String>) throws(MessageError) {
            for (field, kind) in kinds where mistyped.contains(field) {
                throw MessageError("\(type): \"\(field)\" must be \(kind)")
            }
        }
    }

    private static let phases: [String: Touch.Phase] = ["down": .began, "move": .moved, "up": .ended, "cancel": .cancelled]

    /// Decodes one text frame; throws a ``MessageError`` saying what is wrong.
    public init(json: String) throws(MessageError) {
        let fields: Fields
        do { fields = try JSONDecoder().decode(Fields.self, from: Data(json.utf8)) } catch {
            throw MessageError("malformed message: expected a JSON object with a string \"type\"")
        }
        switch fields.type {
        case "pointer":
            try fields.check(["control": "a string", "phase": "a string", "x": "a number", "y": "a number"])
            guard let control = fields.control else { throw MessageError("pointer: missing \"control\"") }
            guard let name = fields.phase, let phase = Self.phases[name] else {
                throw MessageError("pointer: \"phase\" must be one of down, move, up, cancel")
            }
            guard let x = fields.x, let y = fields.y else { throw MessageError("pointer: missing \"x\" or \"y\"") }
            guard x.isFinite, y.isFinite, abs(x) <= Self.coordinateLimit, abs(y) <= Self.coordinateLimit else {
                throw MessageError("pointer: coordinates (\(x), \(y)) out of range (at most \(Int(Self.coordinateLimit)) from the control)")
            }
            self = .pointer(control: control, phase: phase, location: Point(x: x, y: y))
        case "insertText":
            try fields.check(["text": "a string"])
            guard let text = fields.text, !text.isEmpty, text.count <= Self.textLimit else {
                throw MessageError("insertText: \"text\" must hold 1 to \(Self.textLimit) characters")
            }
            self = .insertText(text)
        case "deleteBackward":
            self = .deleteBackward
        case "inspect":
            try fields.check(["on": "true or false", "control": "a control's id", "property": "a property's name"])
            guard let on = fields.on else { throw MessageError("inspect: \"on\" must be true or false") }
            self = .inspect(on: on, control: fields.control, property: fields.property)
        default:
            throw MessageError("unknown message type \"\(fields.type)\" (pointer, insertText, deleteBackward or inspect)")
        }
    }
}

/// What is wrong with a message; the page gets it as an error frame.
public struct MessageError: Error, Equatable, CustomStringConvertible {
    /// The explanation sent to the page.
    public let description: String
    init(_ description: String) { self.description = description }
}

/// A message to the page.
public enum ServerMessage: Equatable, Sendable {
    /// On connection: every property, and the frames the page sizes its controls by.
    case snapshot([String: PropertyValue])
    /// After a message: the properties whose values changed, and the events the controls sent.
    case update(changes: [String: PropertyValue], events: [String])
    /// A refused message; the connection stays open.
    case error(String)
    /// What the inspector panel draws (after an update, while the page's inspector is on).
    case inspector(InspectorReport)

    /// The message as a JSON text frame, keys sorted.
    public var json: String {
        let body: Body =
            switch self {
            case .snapshot(let properties): Body(type: "snapshot", properties: properties)
            case .update(let changes, let events): Body(type: "update", changes: changes, events: events)
            case .error(let message): Body(type: "error", message: message)
            case .inspector(let report): Body(type: "inspector", inspector: report)
            }
        // Encoding strings, booleans and finite numbers cannot fail.
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try! encoder.encode(body), as: UTF8.self)
    }

    private struct Body: Encodable {
        let type: String
        var properties: [String: PropertyValue]? = nil
        var changes: [String: PropertyValue]? = nil
        var events: [String]? = nil
        var message: String? = nil
        var inspector: InspectorReport? = nil
    }
}
