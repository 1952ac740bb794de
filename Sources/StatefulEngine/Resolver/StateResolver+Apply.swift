// How a resolver applies a state: the rounds of its apply loop, the writes, and the diff it reads.

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
    public func apply(_ state: ControlState) throws(ResolverError) -> Int { try apply(state, calledBy: nil) }

    /// ``apply(_:)``, called by a method of `caller` (a control applying its own state), which
    /// its caller keeps alive until the method returns: a target there is written without
    /// retaining it.
    @discardableResult
    package func apply(_ state: ControlState, calledBy caller: AnyObject?) throws(ResolverError) -> Int {
        checkNotEvaluating("apply(_:)")
        guard applying.begin(state) else { return 0 }
        if applying.sweepsDeadTargets { sweepDeadTargets(1) }
        let writes: Int
        // A loop for each property access: the branch is taken once, not at each write.
        let caller = caller.map { Unmanaged.passUnretained($0).toOpaque() }
        do {
            writes =
                try targets.readsReferenceCounts
                ? applyRounds(direct: true, caller: caller, checksAccesses: AnyPropertyWriter.accessesInProgress)
                : applyRounds(direct: false, caller: caller, checksAccesses: false)
        } catch {
            finishApplying()
            throw error
        }
        finishApplying()
        return writes
    }

    /// Moves the resolver to `state` when that writes nothing — no apply runs, and no rule tells
    /// `state` from ``appliedState`` — and returns true; returns false, having done nothing,
    /// when `state` needs an ``apply(_:)``. A control asks first: a change of bits no rule
    /// reads then costs a comparison.
    ///
    /// - Complexity: O(1).
    @inlinable
    package func moveWithoutWrites(to state: ControlState) -> Bool { applying.move(to: state) }

    @inline(__always)
    private func finishApplying() {
        applying.isApplying = false
        if isSelf(rules.diffReader) { rules.diffReader = nil }
        if !bindings.retired.isEmpty || slab.hasReleased { releaseAfterApplying() }
    }

    /// Applies the requested state until setters stop changing it; returns the writes. `direct`:
    /// the targets' property access; `caller` and `checksAccesses`: see
    /// ``write(_:_:direct:caller:checksAccesses:)`` (no access in progress when the apply
    /// began means none when each write comes: user code that runs between writes returns
    /// with its accesses ended).
    ///
    /// Transparent: inlined at both calls whatever the size of `apply` (`@inline(__always)` is
    /// not, past the inliner's limit on the caller's size), so that each loop is compiled for
    /// its access, without a test of it at each write.
    @_transparent
    private func applyRounds(direct: Bool, caller: UnsafeMutableRawPointer?, checksAccesses: Bool) throws(ResolverError) -> Int {
        var writes = 0, rounds = 0
        while let round = try applying.nextRound(&rounds) {
            guard applying.distinguishes(round.from, round.to) else { continue }
            try beginChanges(from: round.from, to: round.to)
            let stamp = applying.mutationCount
            while let change = applying.pending.next() {
                let written: Bool
                if stamp == applying.mutationCount {
                    guard let binding = binding(for: change) else { continue }
                    written = binding._withUnsafeGuaranteedRef {
                        write($0, Self.handle(change.new_value), direct: direct, caller: caller, checksAccesses: checksAccesses)
                    }
                } else {
                    // A setter that bound or removed values made the list stale (and its
                    // slots): find the binding by its key and resolve again.
                    guard let binding = bindings[Self.key(change.target, change.key_path)] else { continue }
                    written = sync(binding)
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
        let bindings = self.bindings.takeRetired()
        withExtendedLifetime(bindings) {}
        drainReleased()
    }

    private static func handle(_ value: csr_value) -> csr_value? { value == CSR_NO_VALUE ? nil : value }

    /// Starts the pending changes on the bindings whose value differs between two states: the C diff,
    /// read in place; when the table has no memory for a diff list, pair by pair (resolving
    /// never fails for lack of memory).
    func beginChanges(from: ControlState, to: ControlState) throws(ResolverError) {
        if !computed.isEmpty { try bindComputedValues(for: to) }
        var pointer: UnsafePointer<csr_change>?
        var count = 0
        // On shared rules, another resolver's apply may be reading the diff this one frees.
        if let reader = rules.diffReader, !isSelf(reader) { reader._withUnsafeGuaranteedRef { $0.applying.pending.detach() } }
        let status = evaluating { csr_diff(table, tableState(from), tableState(to), &pointer, &count) }
        if status == CSR_OK {
            rules.diffReader = Unmanaged.passUnretained(self)
            return applying.pending.begin(UnsafeBufferPointer(start: pointer, count: count))
        }
        rules.diffReader = nil
        guard status == CSR_ERR_NOMEM else { throw .corrupted }
        applying.pending.begin(
            owning: bindings.sortedKeys.compactMap { key in
                let old = resolve(key, in: from), new = resolve(key, in: to)
                guard old != new else { return nil }
                return csr_change(
                    target: UInt32(key >> 32), key_path: UInt32(truncatingIfNeeded: key),
                    old_value: old ?? CSR_NO_VALUE, new_value: new ?? CSR_NO_VALUE, slot: UInt32.max)
            })
    }
}
