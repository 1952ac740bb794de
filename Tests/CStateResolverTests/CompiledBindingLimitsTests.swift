import CStateResolver
import SeededRandom
import Testing

// Which pairs csr_resolve_slot compiles and which it does not (at most 8 bits, obstacles), the
// memory they take (cache clears, budgets) and its errors (invalid slots, calls from inside the
// table). The suite, its helpers and its differential test are in CompiledBindingTests.swift.

extension CompiledBindingTests {
    /// The rules of a pair that read at most 8 bits, in the order they are set.
    struct EightBitCase: Sendable, CustomTestStringConvertible {
        let name: String
        let rules: [(mode: UInt32, mask: UInt64, priority: Int32)]
        var testDescription: String { name }

        /// One CONTAINING rule per bit of `bits`, the higher bits first in resolution order.
        static func perBit(_ name: String, _ bits: UInt64) -> Self {
            Self(
                name: name,
                rules: subsets(of: bits).filter { $0.nonzeroBitCount == 1 }.map {
                    (mode: CSR_CONTAINING.rawValue, mask: $0, priority: Int32($0.trailingZeroBitCount))
                })
        }
    }

    /// Bits in runs, and scattered bits for which the differential test found no compiled
    /// binding (csr_resolve_slot marked the pair not compiled at once).
    static let eightBitCases: [EightBitCase] = [
        .perBit("the 8 low bits", 0xFF),
        .perBit("the 8 top bits", 0xFF << 56),
        .perBit("two runs of 4", 0xF << 60 | 0xF << 3),
        EightBitCase(
            name: "bits 0, 21, 30, 43, 46, 47, 63 (differential test, seed 5)",
            rules: [
                (CSR_EXACTLY.rawValue, 0x8000_0000_0000_0001, 1000), (CSR_CONTAINING_NONE.rawValue, 0x8000_c800_4020_0001, 500),
                (CSR_EXACTLY.rawValue, 0x0000_c000_4020_0000, 0),
            ]),
        EightBitCase(
            name: "bits 16, 22, 25, 35, 41, 47, 58, 61 (differential test, seed 6)",
            rules: [
                (CSR_CONTAINING_ANY.rawValue, 0x0400_0208_0201_0000, 1), (CSR_CONTAINING.rawValue, 0x0000_0200_0040_0000, 999),
                (CSR_CONTAINING_NONE.rawValue, 0x2400_8200_0241_0000, 1),
            ]),
        EightBitCase(
            name: "bits 0, 26, 34, 36, 37, 52, 57, 63 (differential test, seed 2)",
            rules: [
                (CSR_CONTAINING_NONE.rawValue, 0x0010_0020_0000_0001, 500), (CSR_CONTAINING.rawValue, 0x8200_0034_0400_0000, 0),
                (CSR_CONTAINING_ANY.rawValue, 0x8210_0034_0400_0001, 1), (CSR_CONTAINING_ANY.rawValue, 0, 1),
                (CSR_CONTAINING.rawValue, 0x8010_0014_0400_0001, 999),
            ]),
    ]

    /// A pair whose rules read at most 8 bits (no custom rule) is compiled when a state
    /// repeats, wherever the bits are, and resolves like the model in every subset of them.
    @Test(arguments: eightBitCases)
    func pairsReadingAtMostEightBitsCompile(_ testCase: EightBitCase) throws {
        let table = Table()
        var model = ReferenceModel()
        var care: UInt64 = 0
        for (index, r) in testCase.rules.enumerated() {
            let descriptor = rule(csr_mode(r.mode), r.mask, priority: r.priority)
            table.set(1, 1, descriptor, csr_value(index + 1))
            model.set(1, 1, descriptor, csr_value(index + 1))
            care |= r.mask
        }
        try #require(care.nonzeroBitCount <= 8)
        let slot = try #require(table.slot(1, 1))
        for _ in 0..<2 { #expect(table.resolve(slot: slot, in: 0) == SlotResult(expected: model.resolve(1, 1, 0))) }
        #expect(table.compiledBindings == 1, "rules: \(Self.describe(model.ordered(1, 1)))")
        for state in subsets(of: care) + subsets(of: care).map({ $0 | ~care & (care &+ 1) }) {
            try #require(table.resolve(slot: slot, in: state) == SlotResult(expected: model.resolve(1, 1, state)), "state \(state)")
        }
    }

    /// A pair with a custom rule, or whose rules read 9 bits together, is never compiled however
    /// often its states repeat (while a plain pair of the same table is), and resolves like
    /// csr_resolve and the model; once the rule in the way is gone (8 bits read), it compiles.
    @Test(arguments: ["custom rule", "nine bits"])
    func pairsThatCannotBeCompiledResolveThroughTheCaches(obstacle: String) throws {
        let table = Table()
        var model = ReferenceModel()
        func set(_ target: UInt32, _ descriptor: csr_descriptor, _ value: csr_value) {
            table.set(target, 1, descriptor, value)
            model.set(target, 1, descriptor, value)
        }
        set(1, rule(CSR_CONTAINING, 0b01), 1)
        set(1, rule(CSR_EXACTLY, 0b11), 2)
        set(1, rule(CSR_NOT_CONTAINING, 1 << 63, priority: 100), 3)
        let inTheWay = obstacle == "custom rule" ? custom(1, priority: 1001) : rule(CSR_CONTAINING_ANY, 0b11_1111 << 10)
        set(1, inTheWay, 4)
        set(2, rule(CSR_CONTAINING_ANY, 0b10), 5)  // a plain pair, compiled as usual
        let slot = try #require(table.slot(1, 1)), plainSlot = try #require(table.slot(2, 1))

        let states = subsets(of: 0b11 | 1 << 63 | 0b11_1111 << 10) + [0b100, 1 << 40 | 0b11]
        func checkAll(compiled: Int) throws {
            for _ in 0..<3 {
                for state in states {
                    let expected = SlotResult(expected: model.resolve(1, 1, state))
                    try #require(table.resolve(slot: slot, in: state) == expected, "\(obstacle): state \(state)")
                    try #require(table.resolve(slot: slot, in: state) == expected, "\(obstacle): state \(state)")
                    try #require(SlotResult(expected: table.resolve(1, 1, state)) == expected, "\(obstacle): state \(state)")
                    try #require(table.resolve(slot: plainSlot, in: state) == SlotResult(expected: state & 0b10 != 0 ? 5 : nil))
                    try #require(table.resolve(slot: plainSlot, in: state) == SlotResult(expected: state & 0b10 != 0 ? 5 : nil))
                }
            }
            #expect(table.compiledBindings == compiled, "\(obstacle)")
        }
        try checkAll(compiled: 1)

        // Without it the pair reads 8 bits (bit 15 no longer): it compiles.
        table.remove(1, 1, inTheWay)
        _ = model.remove(1, 1, inTheWay)
        set(1, rule(CSR_CONTAINING_ANY, 0b1_1111 << 10), 6)
        try checkAll(compiled: 2)
    }

    /// csr_clear_cache and csr_release_cache free every compiled pair (release frees all cache
    /// memory); the pairs resolve as before, are not compiled by a state seen before the clear,
    /// and compile again when a state repeats.
    @Test(arguments: ["clear", "release"])
    func clearingTheCachesFreesCompiledPairs(_ how: String) throws {
        let table = Table()
        var model = ReferenceModel()
        var rng = SplitMix64(seed: 7)
        var slots: [(keyPath: UInt32, slot: UInt32)] = []
        for keyPath in UInt32(0)..<10 {
            for value in csr_value(1)...4 {
                let descriptor = Self.randomRule(over: 0b1011 << (keyPath * 5), &rng)
                table.set(1, keyPath, descriptor, keyPath * 10 + value)
                model.set(1, keyPath, descriptor, keyPath * 10 + value)
            }
            slots.append((keyPath, try #require(table.slot(1, keyPath))))
        }
        let states = [0] + (0..<64).map { _ in rng.next() & 0x3FF_FFFF_FFFF_FFFF }
        func checkAll() throws {
            for (keyPath, slot) in slots {
                for state in states {
                    try #require(table.resolve(slot: slot, in: state) == SlotResult(expected: model.resolve(1, keyPath, state)))
                }
            }
        }
        /// Resolves each pair twice in a row in the state 0.
        func compileAll() {
            for (keyPath, slot) in slots {
                for _ in 0..<2 { #expect(table.resolve(slot: slot, in: 0) == SlotResult(expected: model.resolve(1, keyPath, 0))) }
            }
        }
        compileAll()
        #expect(table.compiledBindings == slots.count)
        try checkAll()

        if how == "clear" { csr_clear_cache(table.pointer) } else { csr_release_cache(table.pointer) }
        #expect(table.compiledBindings == 0)
        if how == "release" { #expect(table.stats.cache_bytes == 0) }
        for (keyPath, slot) in slots {  // a state resolved before the clear: not a repeat
            #expect(table.resolve(slot: slot, in: states[1]) == SlotResult(expected: model.resolve(1, keyPath, states[1])))
        }
        #expect(table.compiledBindings == 0)
        try checkAll()
        compileAll()
        #expect(table.compiledBindings == slots.count)
        try checkAll()
    }

    /// With a cache budget of 0 nothing is cached or compiled however often states repeat, and
    /// setting it to 0 frees the pairs compiled; every result is still right.
    @Test func aZeroBudgetCompilesNothing() throws {
        let table = Table()
        table.set(1, 1, rule(CSR_CONTAINING, 0b10), 1)
        table.set(1, 1, rule(CSR_EXACTLY, 0b11), 2)
        table.set(1, 2, rule(CSR_CONTAINING_NONE, 1 << 63), 3)
        let first = try #require(table.slot(1, 1)), second = try #require(table.slot(1, 2))
        func check(_ state: UInt64) {
            #expect(table.resolve(slot: first, in: state) == SlotResult(expected: state == 0b11 ? 2 : state & 0b10 != 0 ? 1 : nil))
            #expect(table.resolve(slot: second, in: state) == SlotResult(expected: state >> 63 == 0 ? 3 : nil))
        }
        let states: [UInt64] = [0, 0b10, 0b11, 0b111, 1 << 63, 1 << 63 | 0b11]
        for state in states { check(state); check(state) }
        #expect(table.compiledBindings == 2)

        #expect(csr_set_cache_budget(table.pointer, 0) == CSR_OK)
        #expect(table.compiledBindings == 0)
        for _ in 0..<5 {
            for state in states { check(state) }
        }
        #expect(table.compiledBindings == 0)
        #expect(table.stats.cache_bytes == 0)
        #expect(table.stats.cached_states == 0)
    }

    /// A budget of 4 KB holds a few of 64 compiled pairs at a time: cache_bytes never exceeds
    /// it, compiled pairs are evicted (with no mutation, the count drops) and others compiled,
    /// and every result stays right.
    @Test func aSmallBudgetBoundsTheCompiledPairs() throws {
        let table = Table()
        var model = ReferenceModel()
        var rng = SplitMix64(seed: 11)
        let budget = 4096
        #expect(csr_set_cache_budget(table.pointer, budget) == CSR_OK)
        var pairs: [(keyPath: UInt32, slot: UInt32, bits: UInt64)] = []
        for keyPath in UInt32(0)..<64 {
            let bits = mask(Array(Self.randomPositions(&rng).prefix(Int.random(in: 2...6, using: &rng))))
            for value in csr_value(0)..<3 {
                let descriptor = Self.randomRule(over: bits, &rng)
                table.set(2, keyPath, descriptor, keyPath * 10 + value)
                model.set(2, keyPath, descriptor, keyPath * 10 + value)
            }
            pairs.append((keyPath, try #require(table.slot(2, keyPath)), bits))
        }
        var mostCompiled = 0, compiled = 0, compiledEvicted = false
        for round in 0..<4 {
            for pair in pairs.shuffled(using: &rng) {
                for _ in 0..<3 {
                    let state = Self.randomState(over: pair.bits, &rng)
                    let expected = SlotResult(expected: model.resolve(2, pair.keyPath, state))
                    for _ in 0..<2 {
                        try #require(
                            table.resolve(slot: pair.slot, in: state) == expected,
                            "round \(round), key path \(pair.keyPath), state \(state)")
                        let stats = table.stats
                        try #require(stats.cache_bytes <= budget, "round \(round): \(stats.cache_bytes) bytes")
                        mostCompiled = max(mostCompiled, stats.compiled_bindings)
                        compiledEvicted = compiledEvicted || stats.compiled_bindings < compiled
                        compiled = stats.compiled_bindings
                    }
                }
            }
        }
        #expect(mostCompiled > 0)
        #expect(mostCompiled < pairs.count)
        #expect(compiledEvicted)
        #expect(table.stats.evictions > 0)
    }

    /// A slot no pair holds (never handed out, beyond any, or freed, compiled or not) and a NULL
    /// table give CSR_ERR_INVALID with CSR_NO_VALUE; a pair with no match gives CSR_NO_MATCH.
    @Test func slotsNoPairHoldsAreInvalid() throws {
        let invalid = SlotResult(error: CSR_ERR_INVALID)
        let table = Table()
        #expect(table.resolve(slot: 0, in: 0) == invalid)
        table.set(1, 1, rule(CSR_CONTAINING, 1), 1)
        table.set(1, 2, rule(CSR_CONTAINING, 2), 2)
        table.set(1, 3, rule(CSR_CONTAINING, 4), 3)
        let first = try #require(table.slot(1, 1)), second = try #require(table.slot(1, 2)), third = try #require(table.slot(1, 3))
        for slot in [first, second, third] {
            for _ in 0..<2 { _ = table.resolve(slot: slot, in: 1) }
        }
        #expect(table.compiledBindings == 3)
        #expect(table.resolve(slot: third, in: 2) == SlotResult(expected: nil))
        let beyond = max(first, second, third) + 1
        for slot in [beyond, beyond + 1, 1000, UInt32.max - 1, UInt32.max] {
            #expect(table.resolve(slot: slot, in: 1) == invalid, "slot \(slot)")
        }

        csr_remove_binding(table.pointer, 1, 1)  // compiled
        #expect(table.compiledBindings == 2)
        #expect(table.resolve(slot: first, in: 1) == invalid)
        #expect(table.resolve(slot: first, in: 0) == invalid)
        table.remove(1, 2, rule(CSR_CONTAINING, 2))  // its last rule, compiled
        #expect(table.compiledBindings == 1)
        #expect(table.resolve(slot: second, in: 2) == invalid)
        #expect(table.resolve(slot: third, in: 4) == SlotResult(expected: 3))

        #expect(SlotResult(csr_resolve_slot(nil, 0, 0)) == invalid)
        #expect(SlotResult(csr_resolve_slot(nil, first, 1)) == invalid)
    }

    /// Runs `body` on a new probe and a table with the probe as its release context, and two
    /// compiled pairs: (1, 1) matching bit 0 (value 10) and (2, 1) matching the states without
    /// it (value 20); destroys the table after, the probe let go of it first.
    private static func withReentrantTable(
        _ body: (_ probe: ReentrantProbe, _ table: OpaquePointer, _ first: UInt32, _ second: UInt32) throws -> Void
    ) throws {
        let probe = ReentrantProbe()
        var pointer: OpaquePointer?
        try #require(csr_table_create(&pointer, releaseResolvingBySlot, Unmanaged.passUnretained(probe).toOpaque()) == CSR_OK)
        let table = try #require(pointer)
        defer {
            probe.table = nil
            csr_table_destroy(table)
        }
        var first: UInt32 = 0, second: UInt32 = 0
        var containing = rule(CSR_CONTAINING, 1), containingNone = rule(CSR_CONTAINING_NONE, 1)
        try #require(csr_set(table, 1, 1, &containing, 10, &first) == CSR_OK)
        try #require(csr_set(table, 2, 1, &containingNone, 20, &second) == CSR_OK)
        for _ in 0..<2 {
            _ = csr_resolve_slot(table, first, 1)
            _ = csr_resolve_slot(table, second, 1)
        }
        var stats = csr_stats()
        csr_get_stats(table, &stats)
        try #require(stats.compiled_bindings == 2)
        try body(probe, table, first, second)
    }

    /// A release function that calls csr_resolve_slot while the table replaces or removes a
    /// rule gets CSR_ERR_REENTRANT, for the mutated pair's slot (compiled until the mutation
    /// ends) as for another compiled pair's; the table resolves right after, the other pair
    /// still compiled.
    @Test func aReleaseFunctionCannotResolveBySlot() throws {
        try Self.withReentrantTable { probe, table, first, second in
            probe.table = table
            var containing = rule(CSR_CONTAINING, 1)
            (probe.slot, probe.state) = (first, 1)
            #expect(csr_set(table, 1, 1, &containing, 11, nil) == CSR_OK)  // releases 10
            (probe.slot, probe.state) = (second, 0)
            #expect(csr_set(table, 1, 1, &containing, 12, nil) == CSR_OK)  // releases 11
            #expect(csr_remove(table, 1, 1, &containing) == CSR_OK)  // releases 12
            probe.table = nil
            let refused = SlotResult(error: CSR_ERR_REENTRANT)
            #expect(probe.results == [refused, refused, refused])

            #expect(SlotResult(csr_resolve_slot(table, first, 1)) == SlotResult(error: CSR_ERR_INVALID))
            #expect(SlotResult(csr_resolve_slot(table, second, 0)) == SlotResult(expected: 20))
            #expect(SlotResult(csr_resolve_slot(table, second, 1)) == SlotResult(expected: nil))
            var stats = csr_stats()
            csr_get_stats(table, &stats)
            #expect(stats.compiled_bindings == 1)
        }
    }

    /// A custom predicate that calls csr_resolve_slot on a compiled pair's slot while the table
    /// runs it gets CSR_ERR_REENTRANT; the call that ran the predicate still gets its result.
    @Test func aCustomPredicateCannotResolveBySlot() throws {
        try Self.withReentrantTable { probe, table, _, second in
            var predicate = csr_descriptor(
                mode: CSR_CUSTOM, mask: 0, priority: 600, predicate: predicateResolvingBySlot,
                predicate_context: Unmanaged.passUnretained(probe).toOpaque(), predicate_id: 7)
            var slot: UInt32 = 0
            try #require(csr_set(table, 3, 1, &predicate, 30, &slot) == CSR_OK)
            (probe.table, probe.slot, probe.state) = (table, second, 0)
            #expect(SlotResult(csr_resolve_slot(table, slot, 1)) == SlotResult(expected: 30))
            #expect(SlotResult(csr_resolve_slot(table, slot, 2)) == SlotResult(expected: nil))
            probe.table = nil
            let refused = SlotResult(error: CSR_ERR_REENTRANT)
            #expect(probe.results == [refused, refused])
            #expect(SlotResult(csr_resolve_slot(table, second, 0)) == SlotResult(expected: 20))
        }
    }
}
