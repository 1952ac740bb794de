/// The error thrown when a custom state cannot be allocated: every bit of its range is taken.
///
/// A correct program can meet it (other libraries in the process may have taken the bits), so
/// it is thrown rather than trapped; ``description`` names what holds the bits.
public struct CustomStateError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The name that could not be allocated.
    public let name: String
    /// The names holding the range's bits, sorted.
    public let holders: [String]

    /// What went wrong, in words.
    public var description: String {
        "cannot allocate custom state \"\(name)\": all 8 bits of the application range 0x00FF0000 are taken (by \(holders.joined(separator: ", ")))"
    }
}

/// The names of custom states, process-wide: the application range's allocated by name, and
/// the reserved range's fixed by the framework.
final class CustomStateNames: Sendable {
    private let names = Locked<[ControlState: String]>([:])

    /// The process-wide registry behind ``ControlState/allocate(named:)``.
    static let shared = CustomStateNames()

    /// The name of every named state bit.
    var all: [ControlState: String] { names.withLock { $0 } }

    func allocate(named name: String) throws(CustomStateError) -> ControlState {
        if name.isEmpty {
            misuse("ControlState.allocate(named:) with an empty name; name the state in reverse-DNS form, like \"com.example.on\"")
        }
        return try names.withLock { (names) throws(CustomStateError) -> ControlState in
            if let existing = names.first(where: { $0.value == name }) { return existing.key }
            for bit in ControlState.application.bits where names[bit] == nil {
                names[bit] = name
                return bit
            }
            throw CustomStateError(name: name, holders: ControlState.application.bits.compactMap { names[$0] }.sorted())
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
    /// Allocates a free bit of the application range (`0x00FF0000`) for a named custom state.
    ///
    /// Name states in reverse-DNS form, `"com.example.on"`: the name is the state's identity
    /// in the process, so two libraries that both allocate a bare `"valid"` would share a bit.
    /// Allocating a name again returns the bit it already has. The range holds eight states,
    /// and all eight belong to the app (the library's own components use the reserved range).
    ///
    /// ```swift
    /// let on = try ControlState.allocate(named: "com.example.toggle.on")
    /// ```
    ///
    /// Stops the program when `name` is empty (a programmer error).
    /// - Throws: ``CustomStateError`` when all eight bits are taken by other names; its
    ///   description lists them.
    /// - Complexity: O(*n*) in the number of allocated states (at most eight), under a lock:
    ///   safe from any thread.
    public static func allocate(named name: String) throws(CustomStateError) -> ControlState {
        try CustomStateNames.shared.allocate(named: name)
    }

    /// Names a fixed bit of the reserved range (`0xFF000000`) for a state of the library's own
    /// components, as UIKit keeps that range for the framework. The same bit and name again
    /// return it; another name for a named bit is a misuse and stops the program.
    package static func reserved(_ state: ControlState, named name: String) -> ControlState {
        CustomStateNames.shared.reserve(state, named: name)
    }

    /// Whether every bit of the state lies in the application range.
    public var isCustom: Bool { !isEmpty && ControlState.application.isSuperset(of: self) }

    /// The state's bits, lowest first, each as a state of its own.
    var bits: [ControlState] {
        (0..<UInt.bitWidth).map { ControlState(rawValue: 1 << $0) }.filter { contains($0) }
    }

    /// The bits in hexadecimal, as `0x10000`.
    package var hexadecimal: String { "0x" + String(rawValue, radix: 16, uppercase: true) }
}
