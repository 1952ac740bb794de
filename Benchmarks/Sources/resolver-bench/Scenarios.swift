import SeededRandom
import CBenchSupport
import CStateResolver
import StatefulControls

/// A target for the end-to-end runs (single-threaded; Sendable only to cross into MainActor.assumeIsolated).
final class Node: @unchecked Sendable {
    var value: UInt32 = 0
}

@MainActor
struct Scenarios {
    let report: Report
    let quick: Bool
    let states = makeStates(16, seed: 99)

    // MARK: 1–2. Resolving one binding

    /// Every implementation resolving one binding of `rules` over 16 states.
    func resolve(scenario: String, rules: [RuleSpec], params: [String: Param]) {
        let states = self.states
        let table = Table()
        for rule in rules { table.set(1, 1, rule) }
        for state in states {
            precondition(
                table.resolve(1, 1, state) == referenceResolve(rules, state) ?? CSR_NO_VALUE,
                "the resolver disagrees with the reference in state \(state)")
        }
        report.run(scenario, "resolver (warm)", params) { count in
            for i in 0..<count { consume(UInt64(table.resolve(1, 1, states[i & 15]))) }
        }
        let slot = table.slot(1, 1)
        report.run(scenario, "resolver (warm, by slot)", params, note: "csr_resolve_slot: the pair's slot kept by the caller") { count in
            for i in 0..<count { consume(UInt64(table.resolve(slot: slot, states[i & 15]))) }
        }
        report.run(scenario, "resolver (cold)", params, note: "each lookup after csr_clear_cache (included): computed from the rules") {
            count in
            for i in 0..<count {
                csr_clear_cache(table.pointer)
                consume(UInt64(table.resolve(1, 1, states[i & 15])))
            }
        }
        report.run(
            scenario, "resolver (cold, cache memory released)", params,
            note: "each lookup after csr_release_cache (included): a state's first visit, allocating its cache"
        ) { count in
            for i in 0..<count {
                csr_release_cache(table.pointer)
                consume(UInt64(table.resolve(1, 1, states[i & 15])))
            }
        }
        let original = OriginalStore(rules)
        report.run(scenario, "original (filter + max)", params) { count in
            for i in 0..<count { consume(UInt64(original.value(for: states[i & 15]) ?? 0)) }
        }
        let android = AndroidStateList(rules)
        report.run(scenario, "android (first match)", params) { count in
            for i in 0..<count { consume(UInt64(android.value(for: states[i & 15]) ?? 0)) }
        }
        let flutter = FlutterChain(rules)
        report.run(scenario, "flutter (closure chain)", params) { count in
            for i in 0..<count { consume(UInt64(flutter.value(for: states[i & 15]) ?? 0)) }
        }
        var dictionary: [UInt64: UInt32] = [:]
        var judy: UnsafeMutableRawPointer?
        for state in states {
            let value = referenceResolve(rules, state) ?? CSR_NO_VALUE
            dictionary[state] = value
            _ = bench_judyl_insert(&judy, state, UInt64(value))
        }
        report.run(scenario, "swift dictionary [state: value]", params) { count in
            for i in 0..<count { consume(UInt64(dictionary[states[i & 15]] ?? 0)) }
        }
        report.run(scenario, "raw JudyLGet [state: value]", params) { count in
            for i in 0..<count { consume(bench_judyl_get(judy, states[i & 15])) }
        }
        bench_judyl_free(&judy)
        let precomputed = PrecomputedTable(rules)
        report.run(scenario, "precomputed table", params) { count in
            for i in 0..<count { consume(UInt64(precomputed.value(for: states[i & 15]))) }
        }
    }

    /// The rule counts of the `resolve` scenario, at each of which the by-slot goals compare.
    nonisolated static let resolveRuleCounts = [1, 4, 16, 64, 256]

    func resolveByRuleCount() {
        for count in Self.resolveRuleCounts {
            resolve(scenario: "resolve", rules: makeRules(count, seed: UInt64(count)), params: ["rules": .int(count)])
        }
    }

    func tiesAndCustomPredicate() {
        resolve(
            scenario: "ties-custom", rules: makeRules(16, seed: 7, ties: true, custom: true),
            params: ["rules": .int(16), "priorities": .string("500/1000 ties + 1 custom predicate")])
    }

    // MARK: 3. State changes

    func stateChanges() {
        let sizes = [1, 100, 1000, 10_000]
        for bindings in sizes {
            for percent in [100, 10, 1] where bindings * percent >= 100 {
                stateChange(bindings: bindings, percent: percent)
            }
        }
    }

    private func stateChange(bindings: Int, percent: Int) {
        let params: [String: Param] = ["bindings": .int(bindings), "changing_percent": .int(percent)]
        let stride = 100 / percent
        let (table, rules) = makeToggleTable(bindings: bindings, percent: percent)
        let originals = rules.map(OriginalStore.init)
        let toggle: (UInt64, UInt64) = (0, 1 << 2)
        table.diffToggle(0, toggle)
        precondition(table.changeCount(toggle.0, toggle.1) == bindings * percent / 100)
        let warm = report.run("state-change", "resolver diff (warm)", params) { count in
            for i in 0..<count { table.diffToggle(i, toggle) }
        }
        report.run("state-change", "resolver diff (cold)", params, note: "csr_release_cache before each change (included)") { count in
            for i in 0..<count {
                csr_release_cache(table.pointer)
                table.diffToggle(i, toggle)
            }
        }
        report.run("state-change", "original (re-resolve every binding)", params) { count in
            for i in 0..<count {
                let state = i & 1 == 0 ? toggle.1 : toggle.0
                for store in originals { consume(UInt64(store.value(for: state) ?? 0)) }
            }
        }
        // End to end through the Control API, setters included.
        do {
            let control = Control()
            let nodes = (0..<bindings).map { _ in Node() }
            for (index, node) in nodes.enumerated() {
                if index % stride == 0 {
                    control.setValue(1, for: \.value, of: node, forAllStatesContained: .selected)
                } else {
                    control.setValue(2, for: \.value, of: node, forAllStatesContained: .focused)
                }
            }
            report.run("state-change", "Control.isSelected toggle (end to end)", params) { count in
                for _ in 0..<count { control.isSelected.toggle() }
            }
            withExtendedLifetime(nodes) {}
        }
        var perBinding = warm
        perBinding.scenario = "state-change per binding"
        perBinding.nsPerOpMedian /= Double(bindings)
        perBinding.nsPerOpP99 /= Double(bindings)
        perBinding.opsPerSec = 1e9 / perBinding.nsPerOpMedian
        perBinding.implementation = "resolver diff (warm), per bound value"
        report.record(perBinding)
    }

    // MARK: 4. Large tables

    func largeTables() {
        for rules in quick ? [65_536] : [262_144, 1_048_576] {
            largeTable(rules: rules)
        }
    }

    private func largeTable(rules ruleCount: Int) {
        let bindings = ruleCount / 4
        let params: [String: Param] = ["rules": .int(ruleCount), "bindings": .int(bindings)]
        var rng = SplitMix64(seed: UInt64(ruleCount))
        let ruleSets = (0..<64).map { makeRules(4, seed: UInt64($0)) }
        func key(_ index: Int) -> (UInt32, UInt32) { (UInt32(index / 4), UInt32(index % 4)) }
        let table = Table()
        // Every binding resolved in 16 states needs about 8.3 B × 16 per binding (35 MB at
        // 262,144 bindings): the default 16 MiB budget would evict during the warm loop.
        _ = csr_set_cache_budget(table.pointer, 64 << 20)
        let heapBefore = bench_heap_bytes()
        let start = now()
        for index in 0..<bindings {
            let (target, keyPath) = key(index)
            for rule in ruleSets[index & 63] { table.set(target, keyPath, rule) }
        }
        let buildNs = Double(now() - start) / Double(ruleCount)
        let stats = table.stats
        let heapBytes = Double(bench_heap_bytes() - heapBefore) / Double(ruleCount)
        report.record(
            Result(
                scenario: "large", implementation: "resolver build (csr_set)", params: params,
                nsPerOpMedian: buildNs, nsPerOpP99: buildNs, opsPerSec: 1e9 / buildNs,
                bytesPerRule: Double(stats.rule_bytes) / Double(stats.rules),
                note:
                    "one pass; bytes/rule from csr_stats (Judy + rule storage); malloc heap grew \(String(format: "%.1f", heapBytes)) B/rule"
            ))
        let lookups = (0..<65_536).map { _ in (Int.random(in: 0..<bindings, using: &rng), Int.random(in: 0..<16, using: &rng)) }
        let states = self.states
        report.run("large", "resolver (cold start)", params, note: "cache released, then random (binding, state) lookups") { count in
            csr_release_cache(table.pointer)
            for i in 0..<count {
                let (index, state) = lookups[i & 65_535]
                let (target, keyPath) = key(index)
                consume(UInt64(table.resolve(target, keyPath, states[state])))
            }
        }
        for index in 0..<bindings {
            let (target, keyPath) = key(index)
            for state in states { consume(UInt64(table.resolve(target, keyPath, state))) }
        }
        report.run("large", "resolver (warm)", params, note: "every (binding, state) resolved before; cache budget 64 MiB") { count in
            for i in 0..<count {
                let (index, state) = lookups[i & 65_535]
                let (target, keyPath) = key(index)
                consume(UInt64(table.resolve(target, keyPath, states[state])))
            }
        }
        var judy: UnsafeMutableRawPointer?
        for index in 0..<bindings { _ = bench_judyl_insert(&judy, UInt64(index), UInt64(index)) }
        report.run("large", "raw JudyLGet [binding: value]", params) { count in
            for i in 0..<count { consume(bench_judyl_get(judy, UInt64(lookups[i & 65_535].0))) }
        }
        bench_judyl_free(&judy)
        // One dictionary per binding, as each (target, key path) of the original has its own.
        let stores = (0..<bindings).map { OriginalStore(ruleSets[$0 & 63]) }
        report.run("large", "original (filter + max)", params) { count in
            for i in 0..<count {
                let (index, state) = lookups[i & 65_535]
                consume(UInt64(stores[index].value(for: states[state]) ?? 0))
            }
        }
    }

    // MARK: 5. Insert and remove; memory

    func insertAndRemove() {
        for size in [1_024, 65_536] {
            let params: [String: Param] = ["bindings": .int(size)]
            let rule = RuleSpec(mode: .containing, mask: 1 << 2, priority: 999, value: 1)
            report.run("insert-remove", "csr_set into a new binding", params, note: "tables of `bindings` rules built and destroyed") {
                count in
                var done = 0
                while done < count {
                    let table = Table()
                    for index in 0..<min(size, count - done) { table.set(UInt32(index), 0, rule) }
                    done += size
                }
            }
            let table = Table()
            for index in 0..<size { table.set(UInt32(index), 0, rule) }
            report.run("insert-remove", "csr_set replacing a value", params) { count in
                for i in 0..<count {
                    table.set(UInt32(i % size), 0, RuleSpec(mode: .containing, mask: 1 << 2, priority: 999, value: UInt32(i & 0xFFFF)))
                }
            }
            var descriptor = cDescriptor(rule)
            report.run("insert-remove", "csr_remove + csr_set", params) { count in
                for i in 0..<count {
                    _ = csr_remove(table.pointer, UInt32(i % size), 0, &descriptor)
                    table.set(UInt32(i % size), 0, rule)
                }
            }
            report.record(memory(bindings: size, rulesPerBinding: 4))
        }
    }

    /// Bytes per rule of a `StateResolver` (Swift side plus C table), from the malloc heap.
    private func memory(bindings: Int, rulesPerBinding: Int) -> Result {
        do {
            let targets = (0..<bindings).map { _ in Node() }
            let rules = makeRules(rulesPerBinding, seed: 3)
            let before = bench_heap_bytes()
            let start = now()
            let resolver = StateResolver()
            for target in targets {
                for rule in rules where rule.mode != .custom {
                    try! resolver.setValue(rule.value, for: \.value, of: target, when: rule.descriptor)
                }
            }
            let elapsed = Double(now() - start) / Double(resolver.ruleCount)
            let bytes = Double(bench_heap_bytes() - before) / Double(resolver.ruleCount)
            withExtendedLifetime((resolver, targets)) {}
            return Result(
                scenario: "insert-remove", implementation: "StateResolver.setValue (Swift API)",
                params: ["bindings": .int(bindings), "rules": .int(bindings * rulesPerBinding)],
                nsPerOpMedian: elapsed, nsPerOpP99: elapsed, opsPerSec: 1e9 / elapsed, bytesPerRule: bytes,
                note: "one pass; bytes/rule = malloc heap growth (Swift records, value slab, C table)")
        }
    }
}
