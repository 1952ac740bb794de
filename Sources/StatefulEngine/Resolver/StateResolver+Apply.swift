internal import CStateResolver

extension StateResolver {
    /// Moves the resolver to `state`, writing exactly the bound values that differ between
    /// ``appliedState`` and `state`, in a deterministic order: targets in the order of their
    /// ids — the order they were first bound, except that a target bound after another went
    /// takes that one's id and place — and for each target its key paths in the order this
    /// resolver first saw them. Applying the applied state writes nothing.
    ///
    /// Every eighth apply also checks one bound target for deallocation (see
    /// `sweepDeadTargets(_:)`).
    ///
    /// Setters may call back into the resolver. A value bound or removed by a setter is applied
    /// by that call (a binding removed before its turn gets its default). An `apply` from a
    /// setter does not nest: the running apply continues to the newest requested state once
    /// the current round of writes is done, so the last request wins and writes never
    /// interleave.
    ///
    /// - Complexity: O(*c*) in the bindings whose value changes, when the pair of states was
    ///   diffed before (one cached lookup); O(*n*) in the bound pairs for a pair of states seen
    ///   for the first time.
    /// - Returns: The number of values written.
    /// - Throws: ``ResolverError/cycle`` when setters keep changing the requested state for
    ///   more than 64 rounds; the resolver stays at the last state it applied.
    @discardableResult
    public func apply(_ state: ControlState) throws(ResolverError) -> Int {
        checkNotEvaluating("apply(_:)")
        requestedState = state
        guard !isApplying else { return 0 }
        isApplying = true
        applyCount &+= 1
        if applyCount & 7 == 0 { sweepDeadTargets(1) }
        let writes: Int
        do { writes = try applyRounds() } catch {
            finishApplying()
            throw error
        }
        finishApplying()
        return writes
    }

    @inline(__always)
    private func finishApplying() {
        isApplying = false
        if !retired.isEmpty || slab.hasReleased { releaseAfterApplying() }
    }

    /// Applies ``requestedState`` until setters stop changing it; returns the writes.
    @inline(__always)
    private func applyRounds() throws(ResolverError) -> Int {
        var writes = 0, rounds = 0
        while appliedState != requestedState {
            rounds += 1
            guard rounds <= Self.maximumRounds else {
                requestedState = appliedState
                throw .cycle
            }
            let from = appliedState, to = requestedState
            applied = to
            guard (from.rawValue ^ to.rawValue) & sensitiveBits != 0 else { continue }
            try beginChanges(from: from, to: to)
            let stamp = mutationCount
            while let change = pending.next() {
                guard let binding = binding(for: change) else { continue }
                // A setter that bound or removed values made the list stale: resolve again.
                let written = binding._withUnsafeGuaranteedRef { binding in
                    stamp == mutationCount ? write(binding, Self.handle(change.new_value)) : sync(binding)
                }
                if written { writes += 1 }
            }
        }
        return writes
    }

    /// Releases the bindings removed during the apply and the values and predicates the table
    /// let go of; their deinits (user code) run after it, and may call back.
    @inline(never)
    private func releaseAfterApplying() {
        let bindings = retired
        retired = []
        withExtendedLifetime(bindings) {}
        drainReleased()
    }

    private static func handle(_ value: csr_value) -> csr_value? { value == CSR_NO_VALUE ? nil : value }

    /// Starts ``pending`` on the bindings whose value differs between two states: the C diff,
    /// read in place; when the table has no memory for a diff list, pair by pair (resolving
    /// never fails for lack of memory).
    func beginChanges(from: ControlState, to: ControlState) throws(ResolverError) {
        var pointer: UnsafePointer<csr_change>?
        var count = 0
        let status = evaluating { csr_diff(table, UInt64(from.rawValue), UInt64(to.rawValue), &pointer, &count) }
        if status == CSR_OK { return pending.begin(UnsafeBufferPointer(start: pointer, count: count)) }
        guard status == CSR_ERR_NOMEM else { throw .corrupted }
        pending.begin(owning: bindings.keys.sorted().compactMap { key in
            let old = resolve(key, in: from), new = resolve(key, in: to)
            guard old != new else { return nil }
            return csr_change(target: UInt32(key >> 32), key_path: UInt32(truncatingIfNeeded: key),
                              old_value: old ?? CSR_NO_VALUE, new_value: new ?? CSR_NO_VALUE, slot: UInt32.max)
        })
    }
}

/// The changes an apply is writing. They are read in place, from memory the C table owns until
/// its next mutation; ``detach()`` copies the ones not handed out yet before such a call.
struct PendingChanges {
    private var borrowed = UnsafeBufferPointer<csr_change>(start: nil, count: 0)
    private var owned: [csr_change] = []
    private var index = 0

    mutating func begin(_ changes: UnsafeBufferPointer<csr_change>) {
        borrowed = changes
        if !owned.isEmpty { owned = [] }
        index = 0
    }

    mutating func begin(owning changes: [csr_change]) {
        borrowed = UnsafeBufferPointer(start: nil, count: 0)
        owned = changes
        index = 0
    }

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
