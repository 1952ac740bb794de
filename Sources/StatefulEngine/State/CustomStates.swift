/// The error thrown when a custom state cannot be allocated in the range asked for.
///
/// A correct program can meet it (other libraries in the process may have taken the bits), so
/// it is thrown rather than trapped; ``description`` names what holds the bits.
public enum CustomStateError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Every bit of `range` is taken: `holders` names the state on each bit, lowest bit first.
    case rangeFull(name: String, range: ControlState, holders: [String])
    /// `name` was allocated already, as `state`, which lies outside `range`: a name is one
    /// state in the whole process.
    case allocatedOutsideRange(name: String, state: ControlState, range: ControlState)

    /// The name that could not be allocated.
    public var name: String {
        switch self {
        case .rangeFull(let name, _, _), .allocatedOutsideRange(let name, _, _): name
        }
    }

    /// What went wrong, in words.
    public var description: String {
        switch self {
        case .rangeFull(let name, let range, let holders):
            "cannot allocate custom state \"\(name)\": all \(range.rawValue.nonzeroBitCount) bits of \(range.rangeDescription) are taken (by \(holders.joined(separator: ", ")))"
        case .allocatedOutsideRange(let name, let state, let range):
            "cannot allocate custom state \"\(name)\" in \(range.rangeDescription): the name has bit \(state.hexadecimal) already"
        }
    }
}

/// The names of custom states, process-wide: the application ranges' allocated by name, and
/// the reserved range's fixed by the framework.
final class CustomStateNames: Sendable {
    private let names = Locked<[ControlState: String]>([:])

    /// The process-wide registry behind ``ControlState/allocate(named:in:)``.
    static let shared = CustomStateNames()

    /// The name of every named state bit.
    var all: [ControlState: String] { names.withLock { $0 } }

    func allocate(named name: String, in range: ControlState) throws(CustomStateError) -> ControlState {
        if name.isEmpty {
            misuse("ControlState.allocate(named:in:) with an empty name; name the state in reverse-DNS form, like \"com.example.on\"")
        }
        guard !range.isEmpty, ControlState.applicationRanges.isSuperset(of: range) else {
            misuse(
                "ControlState.allocate(named: \"\(name)\", in: \(range.hexadecimal)): the range must be bits of the application ranges 0x00FF0000 and 0xFFFFFFFF00000000, such as ControlState.extendedApplication"
            )
        }
        switch names.withLock({ $0.allocateBit(named: name, in: range) }) {
        case .named(let state): return state
        case .heldOutside(let state): throw .allocatedOutsideRange(name: name, state: state, range: range)
        case .full(let holders): throw .rangeFull(name: name, range: range, holders: holders)
        }
    }

    func reserve(_ state: ControlState, named name: String) -> ControlState {
        guard state.rawValue.nonzeroBitCount == 1, ControlState.reserved.contains(state) else {
            misuse("ControlState.reserved(_:named:) takes one bit of the reserved range 0xFF000000, not \(state.hexadecimal) (\"\(name)\")")
        }
        names.withLock { names in
            if let holder = names[state], holder != name {
                misuse("reserved state \(state.hexadecimal) is named \"\(holder)\" already; \"\(name)\" needs another bit")
            }
            names[state] = name
        }
        return state
    }
}

extension ControlState {
    /// Allocates a free bit of `range` for a named custom state: by default one of UIKit's
    /// eight (``application``, `0x00FF0000`) while one is free, then one of the 32 of
    /// ``extendedApplication`` (`0xFFFFFFFF00000000`), 40 in all.
    ///
    /// Name states in reverse-DNS form, `"com.example.on"`: the name is the state's identity
    /// in the process, so two libraries that both allocate a bare `"valid"` would share a bit.
    /// Allocating a name again returns the bit it already has. All 40 bits belong to apps and
    /// their libraries (the library's own components use the reserved range). Ask for
    /// `in: .application` when the state must cross into UIKit's `UIControl.State`, and for
    /// `in: .extendedApplication` to leave UIKit's eight to others ("Custom states beyond
    /// eight" in the StatefulEngine documentation says what a UIKit bridge does with them).
    ///
    /// ```swift
    /// let on = try ControlState.allocate(named: "com.example.toggle.on")
    /// let archived = try ControlState.allocate(named: "com.example.cell.archived", in: .extendedApplication)
    /// ```
    ///
    /// A state is one bit of the machine word wherever it lies: matching, resolution and
    /// state changes cost the same for all 40.
    ///
    /// Stops the program when `name` is empty or `range` is empty or not within the two
    /// application ranges (programmer errors).
    /// - Parameters:
    ///   - name: The state's name, in reverse-DNS form.
    ///   - range: Where the bit may lie: bits of ``application`` and ``extendedApplication``.
    /// - Throws: ``CustomStateError/rangeFull(name:range:holders:)`` when every bit of
    ///   `range` is taken by other names, which it lists;
    ///   ``CustomStateError/allocatedOutsideRange(name:state:range:)`` when `name` has a bit
    ///   already, outside `range`.
    /// - Complexity: O(*n*) in the number of named states (at most 48: 40 here, 8 reserved), under a lock: safe
    ///   from any thread.
    public static func allocate(named name: String, in range: ControlState = [.application, .extendedApplication])
        throws(CustomStateError) -> ControlState
    {
        try CustomStateNames.shared.allocate(named: name, in: range)
    }

    /// Names a fixed bit of the reserved range (`0xFF000000`) for a state of the library's own
    /// components, as UIKit keeps that range for the framework. The same bit and name again
    /// return it; another name for a named bit is a misuse and stops the program.
    package static func reserved(_ state: ControlState, named name: String) -> ControlState {
        CustomStateNames.shared.reserve(state, named: name)
    }

    /// Both application ranges: where custom states of apps and libraries lie.
    package static var applicationRanges: ControlState { [.application, .extendedApplication] }

    /// Whether every bit of the state lies in the application ranges (``application`` and
    /// ``extendedApplication``).
    public var isCustom: Bool { !isEmpty && ControlState.applicationRanges.isSuperset(of: self) }

    /// The range in words, for messages: "the application range 0x00FF0000", …
    package var rangeDescription: String {
        switch self {
        case .application: "the application range 0x00FF0000"
        case .extendedApplication: "the extended application range 0xFFFFFFFF00000000"
        case .applicationRanges: "the application ranges 0x00FF0000 and 0xFFFFFFFF00000000"
        default: "the range \(hexadecimal)"
        }
    }
}
