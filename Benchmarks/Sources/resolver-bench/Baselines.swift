import SeededRandom
import CBenchSupport
import CStateResolver
import StatefulEngine

/// One rule as every implementation receives it.
struct RuleSpec {
    enum Mode: Int, CaseIterable { case exactly, containing, notContaining, containingAny, containingNone, custom }
    var mode: Mode
    var mask: UInt64
    var priority: Int32
    var value: UInt32

    static func defaultPriority(_ mode: Mode) -> Int32 {
        switch mode {
        case .exactly: 1000
        case .containing: 999
        case .notContaining: 750
        case .containingAny, .containingNone: 500
        case .custom: 600
        }
    }

    /// The custom predicate every implementation uses: at least three state bits set.
    static func customPredicate(_ state: UInt64) -> Bool { state.nonzeroBitCount >= 3 }

    /// The rule as the library's descriptor: its matching is the library's one formula.
    var descriptor: StateDescriptor {
        let state = ControlState(rawValue: UInt(mask))
        return switch mode {
        case .exactly: .exactly(state, priority: priority)
        case .containing: .containing(state, priority: priority)
        case .notContaining: .notContaining(state, priority: priority)
        case .containingAny: .containingAny(state, priority: priority)
        case .containingNone: .containingNone(state, priority: priority)
        case .custom: .custom("three bits", priority: priority) { Self.customPredicate(UInt64($0.rawValue)) }
        }
    }

    func matches(_ state: UInt64) -> Bool { descriptor.matches(ControlState(rawValue: UInt(state))) }
}

/// The state bits the benchmark uses: the four system states and four custom ones.
let stateBits: [UInt64] = [1 << 0, 1 << 1, 1 << 2, 1 << 3, 1 << 16, 1 << 17, 1 << 18, 1 << 19]

func randomMask(_ rng: inout SplitMix64) -> UInt64 {
    let count = Int.random(in: 1...2, using: &rng)
    return (0..<count).reduce(0) { mask, _ in mask | stateBits.randomElement(using: &rng)! }
}

/// `count` rules of mixed modes with their default priorities (so ties occur).
func makeRules(_ count: Int, seed: UInt64, ties: Bool = false, custom: Bool = false) -> [RuleSpec] {
    var rng = SplitMix64(seed: seed)
    var rules = (0..<count).map { index in
        let mode = RuleSpec.Mode.allCases.dropLast().randomElement(using: &rng)!
        let priority = ties ? Int32([500, 1000].randomElement(using: &rng)!) : RuleSpec.defaultPriority(mode)
        return RuleSpec(mode: mode, mask: randomMask(&rng), priority: priority, value: UInt32(index))
    }
    if custom, !rules.isEmpty {
        rules[count / 2] = RuleSpec(mode: .custom, mask: 0, priority: 600, value: UInt32(count / 2))
    }
    return rules
}

/// `count` states drawn from the benchmark's bits.
func makeStates(_ count: Int, seed: UInt64) -> [UInt64] {
    var rng = SplitMix64(seed: seed)
    return (0..<count).map { _ in stateBits.filter { _ in Bool.random(using: &rng) }.reduce(0, |) }
}

/// The reference answer (filter, then max by priority and recency), for checking.
func referenceResolve(_ rules: [RuleSpec], _ state: UInt64) -> UInt32? {
    rules.enumerated().filter { $0.element.matches(state) }
        .max { ($0.element.priority, $0.offset) < ($1.element.priority, $1.offset) }?.element.value
}

// MARK: - This resolver

let customPredicateC: csr_predicate_fn = { state, _ in RuleSpec.customPredicate(state) }

func cDescriptor(_ rule: RuleSpec) -> csr_descriptor {
    let mode: csr_mode =
        switch rule.mode {
        case .exactly: CSR_EXACTLY
        case .containing: CSR_CONTAINING
        case .notContaining: CSR_NOT_CONTAINING
        case .containingAny: CSR_CONTAINING_ANY
        case .containingNone: CSR_CONTAINING_NONE
        case .custom: CSR_CUSTOM
        }
    return csr_descriptor(
        mode: mode, mask: rule.mask, priority: rule.priority,
        predicate: rule.mode == .custom ? customPredicateC : nil,
        predicate_context: nil, predicate_id: rule.mode == .custom ? 1 : 0)
}

/// A C table, owned.
final class Table {
    let pointer: OpaquePointer
    init() {
        var table: OpaquePointer?
        precondition(csr_table_create(&table, nil, nil) == CSR_OK)
        pointer = table!
    }
    deinit { csr_table_destroy(pointer) }

    func set(_ target: UInt32, _ keyPath: UInt32, _ rule: RuleSpec) {
        var descriptor = cDescriptor(rule)
        let status = csr_set(pointer, target, keyPath, &descriptor, rule.value, nil)
        precondition(status == CSR_OK, "csr_set failed: \(status)")
    }

    @inline(__always)
    func resolve(_ target: UInt32, _ keyPath: UInt32, _ state: UInt64) -> UInt32 {
        var value: csr_value = 0
        _ = csr_resolve(pointer, target, keyPath, state, &value)
        return value
    }

    /// The slot of a pair, for `resolve(slot:_:)`.
    func slot(_ target: UInt32, _ keyPath: UInt32) -> UInt32 {
        var slot: UInt32 = 0
        precondition(csr_slot(pointer, target, keyPath, &slot) == CSR_OK)
        return slot
    }

    /// Resolves by slot: what a caller that kept the pair's slot pays.
    @inline(__always)
    func resolve(slot: UInt32, _ state: UInt64) -> UInt32 {
        csr_resolve_slot(pointer, slot, state).value
    }

    var stats: csr_stats {
        var stats = csr_stats()
        csr_get_stats(pointer, &stats)
        return stats
    }

    /// The `i`-th change of a toggle between two states (even: `states.0` to `states.1`, odd:
    /// back) through csr_diff, consuming every changed value.
    func diffToggle(_ i: Int, _ states: (UInt64, UInt64)) {
        let (from, to) = i & 1 == 0 ? states : (states.1, states.0)
        var changes: UnsafePointer<csr_change>?
        var count = 0
        _ = csr_diff(pointer, from, to, &changes, &count)
        var total: UInt64 = 0
        for index in 0..<count { total &+= UInt64(changes![index].new_value) }
        consume(total)
    }

    /// The number of bindings whose value differs between two states.
    func changeCount(_ from: UInt64, _ to: UInt64) -> Int {
        var changes: UnsafePointer<csr_change>?
        var count = 0
        _ = csr_diff(pointer, from, to, &changes, &count)
        return count
    }
}

/// `bindings` bindings (target i, key path 0) of which `percent` % change value between state 0
/// and `selected` (1 << 2): a rule on `selected` over a catch-all; the others hold one rule on
/// `focused`, which never changes. Returns the table and each binding's rules.
func makeToggleTable(bindings: Int, percent: Int) -> (Table, [[RuleSpec]]) {
    let changing = [
        RuleSpec(mode: .containing, mask: 1 << 2, priority: 999, value: 1),
        RuleSpec(mode: .containing, mask: 0, priority: 1, value: 0),
    ]
    let steady = [RuleSpec(mode: .containing, mask: 1 << 3, priority: 999, value: 2)]
    let table = Table()
    let rules = (0..<bindings).map { $0 % (100 / percent) == 0 ? changing : steady }
    for (index, list) in rules.enumerated() {
        for rule in list { table.set(UInt32(index), 0, rule) }
    }
    return (table, rules)
}

// MARK: - The original library's algorithm

/// The original state-driven control library's lookup: every descriptor of a (target, key
/// path) is kept in a dictionary; each lookup filters all of them, then takes the maximum by
/// priority.
struct OriginalStore {
    var values: [StateDescriptor: UInt32] = [:]

    init(_ rules: [RuleSpec]) {
        for rule in rules { values[rule.descriptor] = rule.value }
    }

    @inline(never)
    func value(for state: UInt64) -> UInt32? {
        let state = ControlState(rawValue: UInt(state))
        return values.filter { $0.key.matches(state) }.max { $0.key.priority < $1.key.priority }?.value
    }
}

// MARK: - Android's first-match list

/// Android's state list: items of (required states, forbidden states) in list order; the first
/// item whose required states are all present and forbidden ones all absent wins. The modes
/// map onto that as closely as a (required, forbidden) pair allows; items are ordered by
/// priority, as an Android developer orders the most specific first.
struct AndroidStateList {
    struct Item { let required: UInt64, forbidden: UInt64, value: UInt32 }
    let items: [Item]

    init(_ rules: [RuleSpec]) {
        let all = stateBits.reduce(0, |)
        items = rules.sorted { $0.priority > $1.priority }.map { rule in
            switch rule.mode {
            case .exactly: Item(required: rule.mask, forbidden: all & ~rule.mask, value: rule.value)
            case .containing: Item(required: rule.mask, forbidden: 0, value: rule.value)
            case .notContaining, .containingNone: Item(required: 0, forbidden: rule.mask, value: rule.value)
            case .containingAny: Item(required: rule.mask & (~rule.mask &+ 1), forbidden: 0, value: rule.value)
            case .custom: Item(required: 0b111, forbidden: 0, value: rule.value)
            }
        }
    }

    @inline(never)
    func value(for state: UInt64) -> UInt32? {
        for item in items where state & item.required == item.required && state & item.forbidden == 0 {
            return item.value
        }
        return nil
    }
}

// MARK: - Flutter-style closure chain

/// Flutter's `resolveWith` / state maps: a chain of predicates tried in order, the first one
/// satisfied gives the value. Ordered by priority.
struct FlutterChain {
    let chain: [(matches: (UInt64) -> Bool, value: UInt32)]

    init(_ rules: [RuleSpec]) {
        chain = rules.sorted { $0.priority > $1.priority }.map { rule in
            let descriptor = rule.descriptor
            return ({ descriptor.matches(ControlState(rawValue: UInt($0))) }, rule.value)
        }
    }

    @inline(never)
    func value(for state: UInt64) -> UInt32? {
        for link in chain where link.matches(state) { return link.value }
        return nil
    }
}

// MARK: - Precomputed answers

/// The resolved value of every state, precomputed, indexed by the 8 state bits packed into a
/// byte: the floor any resolver can approach.
struct PrecomputedTable {
    let values: [UInt32]

    static func index(_ state: UInt64) -> Int { Int(state & 0xF | (state >> 12) & 0xF0) }

    init(_ rules: [RuleSpec]) {
        var values = [UInt32](repeating: CSR_NO_VALUE, count: 256)
        for index in 0..<256 {
            let state = UInt64(index & 0xF) | UInt64(index & 0xF0) << 12
            values[index] = referenceResolve(rules, state) ?? CSR_NO_VALUE
        }
        self.values = values
    }

    @inline(__always)
    func value(for state: UInt64) -> UInt32 { values.withUnsafeBufferPointer { $0[Self.index(state)] } }
}
