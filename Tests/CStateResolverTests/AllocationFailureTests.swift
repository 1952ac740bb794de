import CJudyFaultInjection
import CStateResolver
import Testing

/// Fails the Nth allocation (Judy's and the table's own, which both go through JudyMalloc) of a
/// scripted workload, for every N: each call succeeds or reports CSR_ERR_NOMEM, nothing leaks,
/// and the table resolves exactly like the reference model afterwards.
@Suite("C resolver: allocation failures")
struct AllocationFailureTests {
    static let states: [UInt64] = [0, 1, 4, 5, 0x10000]

    /// Runs the workload; calls that fail leave the model untouched. Checks every result that
    /// comes back.
    static func workload(_ table: Table, _ model: inout ReferenceModel) throws {
        func set(_ t: UInt32, _ k: UInt32, _ d: csr_descriptor, _ v: csr_value) throws {
            let status = table.set(t, k, d, v)
            try #require(status == CSR_OK || status == CSR_ERR_NOMEM)
            if status == CSR_OK { model.set(t, k, d, v) }
        }
        func check() throws {
            for s in states {
                for (t, k) in model.bindings.keys.map({ (UInt32($0 >> 32), UInt32(truncatingIfNeeded: $0)) }) {
                    try #require(table.resolve(t, k, s) == model.resolve(t, k, s))
                }
                switch table.diff(s, 4) {
                case .success(let changes): try #require(changes == model.diff(s, 4))
                case .failure(let error): try #require(error.status == CSR_ERR_NOMEM)
                }
            }
        }
        // New bindings across many targets grow the index, the slot arrays and the caches.
        for i in UInt32(0)..<40 {
            try set(i % 13, i % 3, rule(CSR_CONTAINING, UInt64(i % 6)), 100 + i)
            try set(i % 13, i % 3, custom(UInt64(i % 3 + 1), priority: Int32(i % 4) * 300), 200 + i)
        }
        try check()
        try set(1, 1, rule(CSR_CONTAINING, 1), 300)  // replace
        for (t, k) in [(2, 2), (3, 0), (5, 1)] as [(UInt32, UInt32)] {
            let d = rule(CSR_CONTAINING, UInt64((t * 3 + k) % 6))
            let status = table.remove(t, k, d)
            try #require(status == (model.remove(t, k, d) == nil ? CSR_NOT_FOUND : CSR_OK))
        }
        // Removing never allocates, so it never fails for lack of memory.
        let removedBinding = model.removeBindings { $0 == ReferenceModel.key(4, 1) }
        try #require(csr_remove_binding(table.pointer, 4, 1) == (removedBinding.isEmpty ? CSR_NOT_FOUND : CSR_OK))
        let removedTarget = model.removeBindings { $0 >> 32 == 7 }
        try #require(csr_remove_target(table.pointer, 7) == (removedTarget.isEmpty ? CSR_NOT_FOUND : CSR_OK))
        try check()
    }

    @Test(arguments: [false, true])
    func everyAllocationCanFail(persistent: Bool) throws {
        var failures = 0, knownJudyLeaks = 0
        for index in 0..<100_000 {
            let ours = fault_injection_live_other_blocks(), judys = fault_injection_live_judy_blocks()
            var model = ReferenceModel()
            var fired = false
            do {
                let table = Table()
                fault_injection_arm(index, persistent)
                defer { fault_injection_disarm() }
                try Self.workload(table, &model)
                fired = fault_injection_fired()
                fault_injection_disarm()
                // Afterwards, with memory back, everything agrees with the model.
                for s in Self.states {
                    for key in model.bindings.keys {
                        let t = UInt32(key >> 32), k = UInt32(truncatingIfNeeded: key)
                        try #require(table.resolve(t, k, s) == model.resolve(t, k, s), "failure at \(index)")
                    }
                    try #require(try table.diff(0, s).get() == model.diff(0, s), "failure at \(index)")
                }
                try #require(table.stats.rules == model.ruleCount)
            }
            try #require(fault_injection_live_other_blocks() == ours, "the table leaked after failing allocation \(index)")
            // libJudy 1.0.5 itself leaks the nodes it built when an allocation fails while
            // JudyLIns turns a full root leaf into a branch (at most two blocks, seen at the
            // 32nd key of an array). Anything else Judy allocated must come back.
            let judyLeak = fault_injection_live_judy_blocks() - judys
            try #require(
                judyLeak == 0 || (fault_injection_fired_in_judy() && judyLeak <= 2),
                "Judy blocks leaked after failing allocation \(index)")
            if judyLeak > 0 { knownJudyLeaks += 1 }
            if !fired { break }
            failures += 1
        }
        #expect(failures > 50, "the workload should allocate many times")
        #expect(knownJudyLeaks <= 4)
    }

    /// Removed bindings leave tombstones; the index is rebuilt once they outnumber the live
    /// ones, and the pool of one-rule bindings moves them into a block of their own once it is
    /// mostly empty. Both are optional: out of memory, the old index and pool stay, and the next
    /// removal compacts them.
    @Test(arguments: [false, true])
    func removingManyBindingsCompactsTheIndex(failingRebuild: Bool) throws {
        let table = Table()
        for k in UInt32(0)..<600 { table.set(k % 7, k, rule(CSR_CONTAINING, UInt64(k % 4)), k) }
        let full = table.stats.rule_bytes
        if failingRebuild { fault_injection_arm(0, true) }
        for k in UInt32(0)..<600 where k % 10 != 0 {
            #expect(csr_remove_binding(table.pointer, k % 7, k) == CSR_OK)
        }
        fault_injection_disarm()
        #expect(table.stats.bindings == 60)
        for k in UInt32(0)..<600 {
            #expect(table.resolve(k % 7, k, 3) == (k % 10 == 0 ? k : nil))
        }
        // The survivors' masks alternate 0 (matches both states) and 2 (only state 3).
        #expect(try table.diff(0, 3).get().count == 30)
        if failingRebuild {
            #expect(table.stats.rule_bytes > full / 2)
            table.set(6, 601, rule(CSR_CONTAINING, 0), 601)
            #expect(csr_remove_binding(table.pointer, 6, 601) == CSR_OK)
        }
        #expect(table.stats.rule_bytes < full / 2)
        // Tombstones are reused by new bindings at the same keys.
        for k in UInt32(0)..<600 where k % 10 != 0 { table.set(k % 7, k, rule(CSR_EXACTLY, 5), k) }
        #expect(table.stats.bindings == 600)
        #expect(table.resolve(1, 1, 5) == 1 && table.resolve(1, 1, 4) == nil)
    }
}
