// Custom events allocated by name, on the model of custom states (see CustomStates.swift in the
// engine): the app's in applicationReserved, the library's own components' in systemReserved.

/// The error thrown when a custom event cannot be allocated.
///
/// A correct program can meet it (other libraries in the process may have taken the bits), so
/// it is thrown rather than trapped; ``description`` names what holds the bits.
public enum CustomEventError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Every bit of `range` is taken: `holders` names the event on each bit, lowest bit first.
    case rangeFull(name: String, range: ControlEvents, holders: [String])

    /// The name that could not be allocated.
    public var name: String {
        switch self {
        case .rangeFull(let name, _, _): name
        }
    }

    /// What went wrong, in words.
    public var description: String {
        switch self {
        case .rangeFull(let name, let range, let holders):
            "cannot allocate custom event \"\(name)\": all \(range.rawValue.nonzeroBitCount) bits of \(range.rangeDescription) are taken (by \(holders.joined(separator: ", ")))"
        }
    }
}

/// The names of allocated events, process-wide, in both ranges.
final class CustomEventNames: Sendable {
    private let names = Locked<[ControlEvents: String]>([:])

    /// The process-wide registry behind ``ControlEvents/allocate(named:)``.
    static let shared = CustomEventNames()

    /// The name of every allocated event bit.
    var all: [ControlEvents: String] { names.withLock { $0 } }

    /// The event named `name` in `range`, allocated on the lowest free bit when new; `call`
    /// names the API in messages.
    func allocate(named name: String, in range: ControlEvents, call: String) throws(CustomEventError) -> ControlEvents {
        if name.isEmpty {
            misuse("\(call) with an empty name; name the event in reverse-DNS form, like \"com.example.saved\"")
        }
        switch names.withLock({ $0.allocateBit(named: name, in: range) }) {
        case .named(let event): return event
        case .heldOutside(let event):
            // One name is one event: a name of the other range would give two meanings to one
            // name, or hand the library's event to the app.
            misuse(
                "\(call): the name is held already, by \(event.holderDescription); a name is one event in the process: name each event in its owner's reverse-DNS domain"
            )
        case .full(let holders): throw .rangeFull(name: name, range: range, holders: holders)
        }
    }
}

extension ControlEvents {
    /// Allocates a free bit of ``applicationReserved`` (`0x0F000000`, four bits) for a named
    /// custom event of the app or one of its libraries, as ``ControlState/allocate(named:in:)``
    /// allocates custom states.
    ///
    /// Name events in reverse-DNS form, `"com.example.saved"`: the name is the event's identity
    /// in the process, so two libraries that allocate a bare `"saved"` would share a bit.
    /// Allocating a name again returns the bit it already has. The library's own events, such
    /// as ``typeComplete``, come from ``systemReserved`` and leave the four bits to the app.
    ///
    /// ```swift
    /// let saved = try ControlEvents.allocate(named: "com.example.editor.saved")
    /// ```
    ///
    /// Allocate at startup, where the error can be handled, and pass the events to the controls
    /// that send them. Bits picked by hand with ``application(_:)`` are not known to the
    /// allocator: pick by hand only in an app that allocates none.
    ///
    /// Stops the program (a programmer error, in release builds too) when `name` is empty, or
    /// names an event of ``systemReserved`` (a name of the library's own components).
    /// - Parameter name: The event's name, in reverse-DNS form.
    /// - Throws: ``CustomEventError/rangeFull(name:range:holders:)`` when the four bits are
    ///   taken by other names, which it lists.
    /// - Complexity: O(*n*) in the number of named events (at most 8), under a lock: safe from
    ///   any thread.
    public static func allocate(named name: String) throws(CustomEventError) -> ControlEvents {
        try CustomEventNames.shared.allocate(named: name, in: .applicationReserved, call: "ControlEvents.allocate(named: \"\(name)\")")
    }

    /// Allocates a bit of ``systemReserved`` for an event of the library's own components, as
    /// UIKit keeps that range for the framework. The same name again returns it. Stops the
    /// program when the name is the app's or the range is full (the library has four events at
    /// most).
    package static func reserved(named name: String) -> ControlEvents {
        do {
            return try CustomEventNames.shared.allocate(
                named: name, in: .systemReserved, call: "ControlEvents.reserved(named: \"\(name)\")")
        } catch {
            internalInconsistency("the library's own events outgrew systemReserved: \(error)")
        }
    }

    /// Who holds an allocated event, for messages: the app or the library.
    var holderDescription: String {
        ControlEvents.applicationReserved.contains(self)
            ? "the app's event \(hexadecimal) (applicationReserved)" : "the library's own event \(hexadecimal) (systemReserved)"
    }

    /// The range in words, for messages.
    var rangeDescription: String {
        switch self {
        case .applicationReserved: "the application range 0x0F000000 (applicationReserved)"
        case .systemReserved: "the framework's range 0xF0000000 (systemReserved)"
        default: "the range \(hexadecimal)"
        }
    }
}
