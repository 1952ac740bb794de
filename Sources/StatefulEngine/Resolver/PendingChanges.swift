// A resolver's part that holds the changes an apply is writing, read in place from the C table.

internal import CStateResolver

/// The changes an apply is writing. They are read in place, from memory the C table owns until
/// its next mutation; ``detach()`` copies the ones not handed out yet before such a call.
struct PendingChanges {
    private var borrowed = UnsafeBufferPointer<csr_change>(start: nil, count: 0)
    private var owned: [csr_change] = []
    /// The next change's index. (32 bits: a table has at most `UInt32.max` slots, so as many
    /// changes; the resolver's flags take the room after it.)
    private var index: UInt32 = 0

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
            guard Int(index) < borrowed.count else { return nil }
            defer { index &+= 1 }
            return borrowed[Int(index)]
        }
        guard Int(index) < owned.count else { return nil }
        defer { index &+= 1 }
        return owned[Int(index)]
    }

    /// Copies the changes not handed out yet, before a table call frees the memory they are in.
    mutating func detach() {
        guard borrowed.baseAddress != nil else { return }
        owned = Array(borrowed[Int(index)...])
        borrowed = UnsafeBufferPointer(start: nil, count: 0)
        index = 0
    }
}
