// The resolver's invariants, checked on demand: the C table's (csr_check), and those of the
// Swift parts and of their agreement with the table.

internal import CStateResolver

extension StateResolver {
    /// Checks the promises the resolver's structures keep, and returns the first one broken
    /// (nil when all hold): a debugging aid for tests and fuzzers, never called by the library.
    ///
    /// - The C table's invariants (`csr_check`: its counts, free lists, memory accounting and
    ///   caches).
    /// - The value slab's: its free list and its versions (see ``ValueSlab``).
    /// - The target registry's: ids, free ids, addresses (see ``TargetRegistry``).
    /// - Their agreement with the table: every rule's value handle is a value of the slab, held
    ///   by that rule alone, and the slab holds no other; every pair's target is registered; the
    ///   binding indexed at a pair's slot is the pair's (the by-slot index follows the table).
    ///
    /// Call it between calls, not from a setter or a predicate the resolver runs.
    ///
    /// - Complexity: O(*n*) in the rules, bindings, targets and cached items (the table's cached
    ///   diffs are checked against its rules: O(diffs × bindings)).
    package func checkInvariants() -> String? {
        let broken = csr_check(table)
        guard broken == CSR_INVARIANTS_HOLD else { return "C table: \(String(cString: csr_invariant_name(broken)))" }
        if let violation = slab.invariantViolation() { return "value slab: \(violation)" }
        if let violation = targets.invariantViolation() { return "target registry: \(violation)" }
        return tableAgreementViolation()
    }

    /// The first disagreement between the table's rules and the Swift parts, nil when none.
    private func tableAgreementViolation() -> String? {
        var report: UnsafeMutablePointer<csr_lint_report>?
        guard csr_lint(table, nil, 0, &report) == CSR_OK, let report else { return "csr_lint failed" }
        defer { csr_lint_free(report) }
        var handles = Set<csr_value>()
        for binding in UnsafeBufferPointer(start: report.pointee.bindings, count: report.pointee.binding_count) {
            let key = Self.key(binding.target, binding.key_path)
            guard targets.isRegistered(binding.target) else { return "the table binds unregistered target \(binding.target)" }
            guard bindings.binding(inSlot: binding.slot)?.takeUnretainedValue().key == key else {
                return "slot \(binding.slot) indexes another binding than the table's pair"
            }
            for rule in UnsafeBufferPointer(start: binding.rules, count: Int(binding.rule_count)) {
                let handle = rule.rule.value
                guard slab.holds(handle), handles.insert(handle).inserted else {
                    return "value handle \(handle): freed, or held by two rules"
                }
            }
        }
        return handles.count == slab.count ? nil : "the slab holds values no rule holds"
    }
}
