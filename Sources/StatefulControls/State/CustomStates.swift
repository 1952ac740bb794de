import Synchronization

/// Errors raised when defining custom states.
public struct CustomStateError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, in words.
    public let description: String
}

/// Hands out the bits of the application range to named custom states, once each.
final class CustomStateAllocator: Sendable {
    private let allocated = Mutex<[ControlState: String]>([:])

    /// The process-wide allocator behind ``ControlState/allocate(named:)``.
    static let shared = CustomStateAllocator()

    /// The names of the allocated states.
    var names: [ControlState: String] { allocated.withLock { $0 } }

    func allocate(named name: String) throws(CustomStateError) -> ControlState {
        try allocated.withLock { (states) throws(CustomStateError) -> ControlState in
            if let existing = states.first(where: { $0.value == name }) { return existing.key }
            var bit = ControlState.application.rawValue & ~(ControlState.application.rawValue - 1)
            while bit & ControlState.application.rawValue != 0 {
                let state = ControlState(rawValue: bit)
                if states[state] == nil {
                    states[state] = name
                    return state
                }
                bit <<= 1
            }
            throw CustomStateError(description:
                "cannot allocate custom state \"\(name)\": all 8 bits of the application range 0x00FF0000 are taken (\(states.values.sorted().joined(separator: ", ")))")
        }
    }
}

extension ControlState {
    /// Allocates a free bit of the application range (`0x00FF0000`) for a named custom state.
    ///
    /// Libraries that allocate their states by name never pick the same bit by accident.
    /// Allocating a name again returns the bit it already has. The range holds eight states;
    /// asking for a ninth throws instead of wrapping around.
    ///
    /// ```swift
    /// extension ControlState {
    ///     static let visited = try! ControlState.allocate(named: "visited")
    /// }
    /// ```
    public static func allocate(named name: String) throws(CustomStateError) -> ControlState {
        try CustomStateAllocator.shared.allocate(named: name)
    }

    /// Whether every bit of the state lies in the application range.
    public var isCustom: Bool { !isEmpty && ControlState.application.isSuperset(of: self) }
}
