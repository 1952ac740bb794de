import CStateResolver
import SeededRandom
import Testing

/// What csr_resolve_slot returns, comparable with ==.
private struct SlotResult: Equatable, CustomStringConvertible {
    let value: csr_value
    let status: csr_status

    init(_ result: csr_result) { (value, status) = (result.value, result.status) }

    /// The result of a resolution whose winner holds `value`; nil: no rule matches.
    init(expected value: csr_value?) {
        self.value = value ?? CSR_NO_VALUE
        status = value == nil ? CSR_NO_MATCH : CSR_OK
    }

    /// The result of a call that failed with `status`.
    init(error status: csr_status) { (value, self.status) = (CSR_NO_VALUE, status) }

    var description: String { "(value \(value), status \(status.rawValue))" }
}

extension Table {
    /// csr_resolve_slot's result for `slot` in `state`.
    fileprivate func resolve(slot: UInt32, in state: UInt64) -> SlotResult {
        SlotResult(csr_resolve_slot(pointer, slot, state))
    }

    /// The pair's slot, nil when it has no rules.
    fileprivate func slot(_ target: UInt32, _ keyPath: UInt32) -> UInt32? {
        var slot: UInt32 = 0
        return csr_slot(pointer, target, keyPath, &slot) == CSR_OK ? slot : nil
    }

    /// The pairs compiled for csr_resolve_slot (csr_stats.compiled_bindings).
    fileprivate var compiledBindings: Int { stats.compiled_bindings }
}

/// The states whose bits are a subset of `mask`, 0 and `mask` included.
private func subsets(of mask: UInt64) -> [UInt64] {
    var states: [UInt64] = []
    var subset: UInt64 = 0
    repeat {
        states.append(subset)
        subset = (subset &- mask) & mask
    } while subset != 0
    return states
}

/// The word with the given bits set.
private func mask(_ positions: [Int]) -> UInt64 { positions.reduce(0) { $0 | 1 << UInt64($1) } }

/// Records what csr_resolve_slot returned when one of the table's callbacks called it.
private final class ReentrantProbe {
    /// The table to call back into; nil: the callbacks call nothing.
    var table: OpaquePointer?
    var slot: UInt32 = 0
    var state: UInt64 = 0
    var results: [SlotResult] = []

    func resolveSlot() {
        guard let table else { return }
        results.append(SlotResult(csr_resolve_slot(table, slot, state)))
    }
}

/// A release function whose context is a ReentrantProbe: calls csr_resolve_slot from inside the table.
private let releaseResolvingBySlot: csr_release_fn = { _, _, context in
    Unmanaged<ReentrantProbe>.fromOpaque(context!).takeUnretainedValue().resolveSlot()
}

/// A custom predicate whose context is a ReentrantProbe: calls csr_resolve_slot from inside the
/// table, then matches the states with bit 0.
private let predicateResolvingBySlot: csr_predicate_fn = { state, context in
    Unmanaged<ReentrantProbe>.fromOpaque(context!).takeUnretainedValue().resolveSlot()
    return state & 1 != 0
}

/// csr_resolve_slot and the bindings it compiles: when a pair is compiled, that its results are
/// always csr_resolve's (through mutations, slot reuse, cache clears and budgets), which pairs
/// are never compiled, and its errors.
@Suite("C resolver: compiled bindings (csr_resolve_slot)")
struct CompiledBindingTests {
    static let modes = [CSR_EXACTLY, CSR_CONTAINING, CSR_NOT_CONTAINING, CSR_CONTAINING_ANY, CSR_CONTAINING_NONE]

    /// Rules as a failure message shows them, in resolution order.
    static func describe(_ rules: [ReferenceModel.Rule]) -> String {
        let names = ["exactly", "containing", "notContaining", "containingAny", "containingNone", "custom"]
        return rules.map { "\(names[Int($0.mode.rawValue)]) 0x\(String($0.mask, radix: 16)) p\($0.priority) -> \($0.value)" }
            .joined(separator: ", ")
    }

    /// A pair and what the differential test knows of it.
    struct Pair {
        let target: UInt32, keyPath: UInt32, slot: UInt32
        /// The bits its rules may read: at most 8.
        let bits: UInt64
        /// Whether the table holds it compiled.
        var isCompiled = false
    }

    /// At most 8 distinct bit positions: one run anywhere, the top run (bit 63 included), two runs
    /// far apart, both ends of the word with bits between, or scattered bits.
    static func randomPositions(_ rng: inout SplitMix64) -> [Int] {
        let count = Int.random(in: 1...8, using: &rng)
        switch Int.random(in: 0..<5, using: &rng) {
        case 0:
            let start = Int.random(in: 0...(64 - count), using: &rng)
            return Array(start..<start + count)
        case 1:
            return Array((64 - count)..<64)
        case 2:
            let low = count / 2, high = count - low
            let lowStart = Int.random(in: 0...(24 - low), using: &rng)
            let highStart = Int.random(in: 32...(64 - high), using: &rng)
            return Array(lowStart..<lowStart + low) + Array(highStart..<highStart + high)
        case 3:
            var positions: Set = [63, 0]
            while positions.count < max(count, 2) { positions.insert(Int.random(in: 1..<63, using: &rng)) }
            return positions.sorted()
        default:
            var positions = Set<Int>()
            while positions.count < count { positions.insert(Int.random(in: 0..<64, using: &rng)) }
            return positions.sorted()
        }
    }

    /// A rule of a non-custom mode over a random subset of `bits` (sometimes all of them, or
    /// none), with a priority that often ties with the pair's other rules.
    static func randomRule(over bits: UInt64, _ rng: inout SplitMix64) -> csr_descriptor {
        let mode = modes.randomElement(using: &rng)!
        let mask =
            switch Int.random(in: 0..<8, using: &rng) {
            case 0: bits
            case 1: UInt64(0)
            default: bits & rng.next()
            }
        let priority: Int32? = Bool.random(using: &rng) ? nil : Int32.random(in: 0...2, using: &rng)
        return rule(mode, mask, priority: priority)
    }

    /// A state over `bits`, with other bits (which only CSR_EXACTLY rules see) one time in three.
    static func randomState(over bits: UInt64, _ rng: inout SplitMix64) -> UInt64 {
        let state = bits & rng.next()
        return Int.random(in: 0..<3, using: &rng) == 0 ? state | (~bits & rng.next()) : state
    }

    /// The states a pair over `bits` is checked in: every subset of its bits, each again with
    /// bits outside them (a random word's, or one bit), and random words.
    static func statesToCheck(over bits: UInt64, _ rng: inout SplitMix64) -> [UInt64] {
        var states: [UInt64] = []
        for subset in subsets(of: bits) {
            states.append(subset)
            let outside = Bool.random(using: &rng) ? rng.next() : 1 << rng.next(upperBound: UInt64(64))
            states.append(subset | (outside & ~bits))
        }
        for _ in 0..<16 { states.append(rng.next()) }
        return states
    }

    /// A pair is compiled once csr_resolve_slot sees one of its states a second time, not
    /// before; its results are csr_resolve's before and after, and a state csr_resolve cached
    /// counts as seen.
    @Test func compilesOnlyWhenAStateRepeats() throws {
        let rules = [
            (rule(CSR_CONTAINING, 0b001), csr_value(10)),
            (rule(CSR_EXACTLY, 0b011), 11),
            (rule(CSR_CONTAINING_NONE, 0b101, priority: 2000), 12),
        ]
        let table = Table(), twin = Table()
        for (descriptor, value) in rules {
            table.set(1, 1, descriptor, value)
            twin.set(1, 1, descriptor, value)
        }
        let slot = try #require(table.slot(1, 1))
        let a: UInt64 = 0b011, b: UInt64 = 0b001
        #expect(table.resolve(slot: slot, in: a) == SlotResult(expected: 11))
        #expect(table.compiledBindings == 0)
        #expect(table.resolve(slot: slot, in: b) == SlotResult(expected: 10))
        #expect(table.compiledBindings == 0)
        #expect(table.resolve(slot: slot, in: a) == SlotResult(expected: 11))
        #expect(table.compiledBindings == 1)
        for state in subsets(of: 0b111) + [0b1000, 0b1011, 1 << 63 | 0b011, 1 << 63] {
            #expect(table.resolve(slot: slot, in: state) == SlotResult(expected: twin.resolve(1, 1, state)), "state \(state)")
        }
        #expect(table.compiledBindings == 1)
        #expect(twin.compiledBindings == 0)

        // csr_resolve fills the state cache: the first csr_resolve_slot in that state compiles.
        let twinSlot = try #require(twin.slot(1, 1))
        #expect(twin.resolve(1, 1, 0b10001) == 10)
        #expect(twin.resolve(slot: twinSlot, in: 0b10001) == SlotResult(expected: 10))
        #expect(twin.compiledBindings == 1)
        #expect(twin.resolve(slot: twinSlot, in: 0b11) == SlotResult(expected: 11))
    }

    /// Random pairs of 1-12 rules over at most 8 bits anywhere in the word compile on a
    /// repeated state (and not before) and resolve like the reference model in every subset of
    /// their bits, with and without other bits, compiled or not; a mutation drops exactly that
    /// pair's compiled binding and the next call sees the new rules, and a slot reused by
    /// another pair answers for it.
    @Test(arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func agreesWithTheModelThroughMutations(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let table = Table()
        var model = ReferenceModel()
        var lastValue: csr_value = 0
        var pairs: [Pair] = []
        var notCompiled: [String] = []  // pairs a repeated state did not compile
        var context = "seed \(seed), setup"

        func set(_ target: UInt32, _ keyPath: UInt32, _ descriptor: csr_descriptor) throws {
            lastValue += 1
            try #require(table.set(target, keyPath, descriptor, lastValue) == CSR_OK)
            model.set(target, keyPath, descriptor, lastValue)
        }
        func makePair(_ target: UInt32, _ keyPath: UInt32) throws -> Pair {
            let bits = mask(Self.randomPositions(&rng))
            for _ in 0..<Int.random(in: 1...12, using: &rng) { try set(target, keyPath, Self.randomRule(over: bits, &rng)) }
            return Pair(target: target, keyPath: keyPath, slot: try #require(table.slot(target, keyPath)), bits: bits)
        }
        func summary(of pair: Pair) -> String {
            "slot \(pair.slot), bits 0x\(String(pair.bits, radix: 16)), rules: \(Self.describe(model.ordered(pair.target, pair.keyPath)))"
        }
        func check(_ pair: Pair, in state: UInt64) throws {
            let expected = SlotResult(expected: model.resolve(pair.target, pair.keyPath, state))
            try #require(
                table.resolve(slot: pair.slot, in: state) == expected,
                "\(context): state 0x\(String(state, radix: 16)), \(summary(of: pair))")
        }
        func checkEverywhere(_ pair: Pair) throws {
            for state in Self.statesToCheck(over: pair.bits, &rng) { try check(pair, in: state) }
        }
        /// The pairs compiled, as the table should count them.
        func compiledPairs() -> Int { pairs.count(where: \.isCompiled) }
        /// Checks the pair at `index`, not compiled at its current rules, in a few distinct
        /// states, which compiles nothing, then repeats the last: that compiles it.
        func compile(_ index: Int) throws {
            let pair = pairs[index]
            let compiled = table.compiledBindings
            var seen = Set<UInt64>()
            let states = (0..<4).map { _ in Self.randomState(over: pair.bits, &rng) }.filter { seen.insert($0).inserted }
            for state in states { try check(pair, in: state) }
            try #require(table.compiledBindings == compiled, "\(context): compiled before a state repeated")
            try check(pair, in: states.last!)
            try #require(table.compiledBindings == compiled || table.compiledBindings == compiled + 1)
            pairs[index].isCompiled = table.compiledBindings == compiled + 1
            if !pairs[index].isCompiled { notCompiled.append("\(context): \(summary(of: pair))") }
        }
        /// After a mutation of the pair at `index`: its compiled binding is gone (the others
        /// stay), its results are the new rules' at once, and it compiles again.
        func recompile(_ index: Int) throws {
            pairs[index].isCompiled = false
            try #require(table.compiledBindings == compiledPairs(), "\(context): the mutation kept the compiled binding")
            try compile(index)
            try checkEverywhere(pairs[index])
        }
        /// After the removal of the pair at `index`: its slot is invalid until a new pair takes it.
        func replacePair(at index: Int, target: UInt32) throws {
            let old = pairs[index]
            pairs[index].isCompiled = false
            try #require(table.compiledBindings == compiledPairs(), "\(context): the removal kept the compiled binding")
            try #require(table.resolve(slot: old.slot, in: old.bits) == SlotResult(error: CSR_ERR_INVALID), "\(context)")
            pairs[index] = try makePair(target, 0)
            #expect(pairs[index].slot == old.slot, "\(context): the freed slot is the one reused")
            try recompile(index)
        }

        for target in UInt32(0)..<6 {
            for keyPath in UInt32(0)..<4 { pairs.append(try makePair(target, keyPath)) }
        }
        for index in pairs.indices { try compile(index) }
        for pair in pairs { try checkEverywhere(pair) }

        var nextTarget: UInt32 = 100
        for step in 0..<200 {
            context = "seed \(seed), step \(step)"
            let index = Int.random(in: pairs.indices, using: &rng)
            let pair = pairs[index]
            let rules = model.rules(pair.target, pair.keyPath)
            func descriptor(of existing: ReferenceModel.Rule) -> csr_descriptor {
                rule(existing.mode, existing.mask, priority: existing.priority)
            }
            switch Int.random(in: 0..<100, using: &rng) {
            case 0..<30:  // a new rule, or one replacing the rule of the same identity
                try set(pair.target, pair.keyPath, Self.randomRule(over: pair.bits, &rng))
                try recompile(index)
            case 30..<45:  // a rule replaced: the same identity, a new value
                try set(pair.target, pair.keyPath, descriptor(of: rules.randomElement(using: &rng)!))
                try recompile(index)
            case 45..<65:  // a rule removed; the last one takes the pair with it
                let removed = descriptor(of: rules.randomElement(using: &rng)!)
                try #require(table.remove(pair.target, pair.keyPath, removed) == CSR_OK)
                _ = model.remove(pair.target, pair.keyPath, removed)
                if rules.count > 1 {
                    try recompile(index)
                } else {
                    try replacePair(at: index, target: nextTarget)
                    nextTarget += 1
                }
            case 65..<80:  // the pair removed, and its slot reused by a new pair
                try #require(csr_remove_binding(table.pointer, pair.target, pair.keyPath) == CSR_OK)
                _ = model.removeBindings { $0 == ReferenceModel.key(pair.target, pair.keyPath) }
                try replacePair(at: index, target: nextTarget)
                nextTarget += 1
            default:  // no mutation: through the compiled binding
                try checkEverywhere(pair)
            }
            try #require(table.compiledBindings == compiledPairs(), "\(context)")
            if step % 25 == 24 {
                for pair in pairs { try checkEverywhere(pair) }
            }
        }
        #expect(table.stats.evictions == 0)
        #expect(compiledPairs() > pairs.count / 2)
        // Every pair reads at most 8 bits and has no custom rule: a repeated state compiles it.
        let uncompiled = notCompiled.count
        #expect(uncompiled == 0, "pairs of at most 8 bits not compiled on a repeated state:\n\(notCompiled.joined(separator: "\n"))")
    }

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

    /// A table with `probe` as its release context, and two compiled pairs: (1, 1) matching
    /// bit 0 (value 10) and (2, 1) matching the states without it (value 20).
    private static func reentrantTable(_ probe: ReentrantProbe) throws -> (table: OpaquePointer, first: UInt32, second: UInt32) {
        var pointer: OpaquePointer?
        try #require(csr_table_create(&pointer, releaseResolvingBySlot, Unmanaged.passUnretained(probe).toOpaque()) == CSR_OK)
        let table = try #require(pointer)
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
        return (table, first, second)
    }

    /// A release function that calls csr_resolve_slot while the table replaces or removes a
    /// rule gets CSR_ERR_REENTRANT, for the mutated pair's slot (compiled until the mutation
    /// ends) as for another compiled pair's; the table resolves right after, the other pair
    /// still compiled.
    @Test func aReleaseFunctionCannotResolveBySlot() throws {
        let probe = ReentrantProbe()
        let (table, first, second) = try Self.reentrantTable(probe)
        defer {
            probe.table = nil
            csr_table_destroy(table)
        }
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

    /// A custom predicate that calls csr_resolve_slot on a compiled pair's slot while the table
    /// runs it gets CSR_ERR_REENTRANT; the call that ran the predicate still gets its result.
    @Test func aCustomPredicateCannotResolveBySlot() throws {
        let probe = ReentrantProbe()
        let (table, _, second) = try Self.reentrantTable(probe)
        defer {
            probe.table = nil
            csr_table_destroy(table)
        }
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
