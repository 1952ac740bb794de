internal import CStateResolver

extension StateResolver {
    /// Moves the resolver to `state`, writing exactly the bound values that differ between
    /// ``appliedState`` and `state`, in a deterministic order: targets in the order they were
    /// first bound, and for each target its key paths in the order this resolver first saw
    /// them. Applying the applied state writes nothing.
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
        defer { isApplying = false }
        var writes = 0, rounds = 0
        while appliedState != requestedState {
            rounds += 1
            guard rounds <= Self.maximumRounds else {
                requestedState = appliedState
                throw .cycle
            }
            let from = appliedState, to = requestedState
            appliedState = to
            let stamp = mutationCount
            for change in try changes(from: from, to: to) {
                let key = Self.key(change.target, change.key_path)
                guard let binding = bindings[key] else { continue }
                // A setter that bound or removed values made the list stale: resolve again.
                let written = stamp == mutationCount ? write(binding, Self.handle(change.new_value)) : sync(binding)
                if written { writes += 1 }
            }
        }
        return writes
    }

    private static func handle(_ value: csr_value) -> csr_value? { value == CSR_NO_VALUE ? nil : value }

    /// The bindings whose value differs between two states, from the C diff; when the table
    /// has no memory for a diff list, pair by pair (resolving never fails for lack of memory).
    func changes(from: ControlState, to: ControlState) throws(ResolverError) -> [csr_change] {
        var pointer: UnsafePointer<csr_change>?
        var count = 0
        let status = evaluating { csr_diff(table, UInt64(from.rawValue), UInt64(to.rawValue), &pointer, &count) }
        if status == CSR_OK { return Array(UnsafeBufferPointer(start: pointer, count: count)) }
        guard status == CSR_ERR_NOMEM else { throw .corrupted }
        return bindings.keys.sorted().compactMap { key in
            let old = resolve(key, in: from), new = resolve(key, in: to)
            guard old != new else { return nil }
            return csr_change(target: UInt32(key >> 32), key_path: UInt32(truncatingIfNeeded: key),
                              old_value: old ?? CSR_NO_VALUE, new_value: new ?? CSR_NO_VALUE)
        }
    }
}
