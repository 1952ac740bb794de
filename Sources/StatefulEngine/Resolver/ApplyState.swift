// What a resolver's apply keeps between its rounds and writes: where it stands (ApplyState)
// and the changes it is writing (PendingChanges). The loop that reads them is in
// StateResolver+Apply.swift.

internal import CStateResolver

/// Where a resolver's applying stands: the applied state and the requested one, whether an
/// ``StateResolver/apply(_:)`` runs (a nested call only moves ``requested``) and the changes it
/// writes, the rule mutations that make those changes stale, the state bits that can change
/// a value, and whether a C call that runs custom predicates is under way.
@usableFromInline
struct ApplyState {
    /// The state whose values are applied.
    @usableFromInline var applied: ControlState
    /// The state the running apply goes to next (the last one asked for).
    @usableFromInline var requested: ControlState
    /// The state bits some rule can tell apart: a state change within the other bits changes no
    /// value, and an apply only moves ``applied``. Grows with the rules (an `exactly` or custom
    /// rule makes it every bit) and is reset when no rule is left.
    @usableFromInline var sensitiveBits: UInt = 0
    /// The applies started (wrapping), to sweep on every eighth.
    @usableFromInline private(set) var count: UInt32 = 0
    /// The changes the running apply is writing.
    var pending = PendingChanges()
    /// Whether an apply runs. (The two flags last, in the room after ``pending``'s 32-bit
    /// index: every control has a resolver, whose size malloc rounds up to 16 bytes.)
    @usableFromInline var isApplying = false
    /// True while a C call that can run custom predicates is under way (a predicate that calls
    /// back into the resolver is a misuse).
    var isEvaluating = false

    /// Records a rule mutation a setter can make (binding and removing values): the changes of
    /// a running apply not written yet are stale, their slots too. Purging a dead target is
    /// not one: its changes are skipped (its bindings are gone; its id is only reused by a
    /// later bind, which is one) and no other binding's value moves.
    mutating func rulesChanged() { pending.detach() }

    /// A resolver's state, with `state` applied.
    init(applied state: ControlState) {
        (applied, requested) = (state, state)
    }

    /// Asks for `state` and starts an apply; false when one runs already, which goes on to
    /// `state` once its current round of writes is done.
    @inline(__always)
    mutating func begin(_ state: ControlState) -> Bool {
        requested = state
        guard !isApplying else { return false }
        isApplying = true
        count &+= 1
        return true
    }

    /// Whether the apply (or move) just begun is one of the eighth that also sweep dead
    /// targets.
    @inlinable
    var sweepsDeadTargets: Bool { count & 7 == 0 }

    /// Moves to `state` as an apply that writes nothing would, counted as one: when none runs
    /// and no rule tells `state` from the applied state. False, with nothing changed,
    /// otherwise.
    @inlinable
    mutating func move(to state: ControlState) -> Bool {
        guard !isApplying, !distinguishes(applied, state) else { return false }
        count &+= 1
        (applied, requested) = (state, state)
        return true
    }

    /// The next round of the running apply: the states it moves between, with ``applied``
    /// moved to the requested state already; nil when the requested state is applied.
    ///
    /// - Parameter rounds: The rounds run so far, counted up.
    /// - Throws: ``ResolverError/cycle`` past ``StateResolver/maximumRounds`` rounds, with the
    ///   request withdrawn (the applied state stays the last one applied).
    @inline(__always)
    mutating func nextRound(_ rounds: inout Int) throws(ResolverError) -> (from: ControlState, to: ControlState)? {
        guard applied != requested else { return nil }
        rounds += 1
        guard rounds <= StateResolver.maximumRounds else {
            requested = applied
            throw .cycle
        }
        let from = applied
        applied = requested
        return (from, requested)
    }

    /// Whether some rule tells `from` and `to` apart (else no value differs between them).
    @inlinable
    func distinguishes(_ from: ControlState, _ to: ControlState) -> Bool {
        (from.rawValue ^ to.rawValue) & sensitiveBits != 0
    }
}

/// The changes an apply is writing: current ones, read in place from memory the C table owns
/// until its next mutation, or stale ones — copied before such a call (``detach()``), or made
/// pair by pair — whose bindings the loop finds by key and whose values it resolves again (a
/// setter may have bound or removed values since the diff: its slots and values may be those
/// of the rules before).
struct PendingChanges {
    /// A change, and whether it is current.
    enum Change {
        case current(csr_change)
        case stale(csr_change)
    }

    private var borrowed = UnsafeBufferPointer<csr_change>(start: nil, count: 0)
    private var stale: [csr_change] = []
    /// The next change's index. (32 bits: a table has at most `UInt32.max` slots, so as many
    /// changes; the resolver's flags take the room after it.)
    private var index: UInt32 = 0

    /// Starts on changes the C table owns (until its next mutation).
    mutating func begin(_ changes: UnsafeBufferPointer<csr_change>) {
        borrowed = changes
        if !stale.isEmpty { stale = [] }
        index = 0
    }

    /// Starts on changes that name no slot (a diff made pair by pair).
    mutating func begin(stale changes: [csr_change]) {
        borrowed = UnsafeBufferPointer(start: nil, count: 0)
        stale = changes
        index = 0
    }

    /// The next change, nil when every one was handed out.
    @inline(__always)
    mutating func next() -> Change? {
        if borrowed.baseAddress != nil {
            guard Int(index) < borrowed.count else { return nil }
            defer { index &+= 1 }
            return .current(borrowed[Int(index)])
        }
        guard Int(index) < stale.count else { return nil }
        defer { index &+= 1 }
        return .stale(stale[Int(index)])
    }

    /// Copies the changes not handed out yet, before a table call frees the memory they are in
    /// (or a setter changes the rules): they are stale from then on.
    mutating func detach() {
        guard borrowed.baseAddress != nil else { return }
        stale = Array(borrowed[Int(index)...])
        borrowed = UnsafeBufferPointer(start: nil, count: 0)
        index = 0
    }
}
