// A resolver's part that holds the changes an apply is writing, read in place from the C table.

internal import CStateResolver

/// The changes an apply is writing. They are read in place, from memory the C table owns until
/// its next mutation; ``detach()`` copies the ones not handed out yet before such a call.
struct PendingChanges {
    private var borrowed = UnsafeBufferPointer<csr_change>(start: nil, count: 0)
    private var owned: [csr_change] = []
    private var index = 0

    /// Starts on changes the C table owns (until its next mutation).
    mutating func begin(_ changes: UnsafeBufferPointer<csr_change>) {
        borrowed = changes
        if !owned.isEmpty { owned = [] }
        index = 0
    }

    /// Starts on changes of its own.
    mutating func begin(owning changes: [csr_change]) {
        borrowed = UnsafeBufferPointer(start: nil, count: 0)
        owned = changes
        index = 0
    }

    /// The next change, nil when every one was handed out.
    @inline(__always)
    mutating func next() -> csr_change? {
        if borrowed.baseAddress != nil {
            guard index < borrowed.count else { return nil }
            defer { index += 1 }
            return borrowed[index]
        }
        guard index < owned.count else { return nil }
        defer { index += 1 }
        return owned[index]
    }

    /// Copies the changes not handed out yet, before a table call frees the memory they are in.
    mutating func detach() {
        guard borrowed.baseAddress != nil else { return }
        owned = Array(borrowed[index...])
        borrowed = UnsafeBufferPointer(start: nil, count: 0)
        index = 0
    }
}
