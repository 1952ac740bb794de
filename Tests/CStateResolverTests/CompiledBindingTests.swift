import CStateResolver
import SeededRandom
import Testing

/// What csr_resolve_slot returns, comparable with ==.
struct SlotResult: Equatable, CustomStringConvertible {
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
    func resolve(slot: UInt32, in state: UInt64) -> SlotResult {
        SlotResult(csr_resolve_slot(pointer, slot, state))
    }

    /// The pair's slot, nil when it has no rules.
    func slot(_ target: UInt32, _ keyPath: UInt32) -> UInt32? {
        var slot: UInt32 = 0
        return csr_slot(pointer, target, keyPath, &slot) == CSR_OK ? slot : nil
    }

    /// The pairs compiled for csr_resolve_slot (csr_stats.compiled_bindings).
    var compiledBindings: Int { stats.compiled_bindings }
}

/// The states whose bits are a subset of `mask`, 0 and `mask` included.
func subsets(of mask: UInt64) -> [UInt64] {
    var states: [UInt64] = []
    var subset: UInt64 = 0
    repeat {
        states.append(subset)
        subset = (subset &- mask) & mask
    } while subset != 0
    return states
}

/// The word with the given bits set.
func mask(_ positions: [Int]) -> UInt64 { positions.reduce(0) { $0 | 1 << UInt64($1) } }

/// Records what csr_resolve_slot returned when one of the table's callbacks called it.
final class ReentrantProbe {
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
let releaseResolvingBySlot: csr_release_fn = { _, _, context in
    Unmanaged<ReentrantProbe>.fromOpaque(context!).takeUnretainedValue().resolveSlot()
}

/// A custom predicate whose context is a ReentrantProbe: calls csr_resolve_slot from inside the
/// table, then matches the states with bit 0.
let predicateResolvingBySlot: csr_predicate_fn = { state, context in
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
}
