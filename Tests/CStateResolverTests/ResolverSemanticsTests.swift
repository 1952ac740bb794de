import CStateResolver
import Testing

private let highlighted: UInt64 = 1 << 0
private let disabled: UInt64 = 1 << 1
private let selected: UInt64 = 1 << 2
private let focused: UInt64 = 1 << 3

@Suite("C resolver: matching and resolution")
struct ResolverSemanticsTests {
    struct MatchCase: CustomTestStringConvertible, Sendable {
        let mode: UInt32, mask: UInt64, state: UInt64, matches: Bool
        var testDescription: String { "mode \(mode) mask \(mask) state \(state) -> \(matches)" }
    }

    static let matchCases: [MatchCase] = [
        // exactly
        .init(mode: CSR_EXACTLY.rawValue, mask: selected, state: selected, matches: true),
        .init(mode: CSR_EXACTLY.rawValue, mask: selected, state: selected | highlighted, matches: false),
        .init(mode: CSR_EXACTLY.rawValue, mask: 0, state: 0, matches: true),
        .init(mode: CSR_EXACTLY.rawValue, mask: 0, state: highlighted, matches: false),
        // containing
        .init(mode: CSR_CONTAINING.rawValue, mask: selected, state: selected | highlighted, matches: true),
        .init(mode: CSR_CONTAINING.rawValue, mask: selected | focused, state: selected, matches: false),
        .init(mode: CSR_CONTAINING.rawValue, mask: 0, state: 0, matches: true),
        .init(mode: CSR_CONTAINING.rawValue, mask: 0, state: disabled, matches: true),
        // notContaining
        .init(mode: CSR_NOT_CONTAINING.rawValue, mask: selected | focused, state: selected, matches: true),
        .init(mode: CSR_NOT_CONTAINING.rawValue, mask: selected, state: selected | focused, matches: false),
        .init(mode: CSR_NOT_CONTAINING.rawValue, mask: 0, state: 0, matches: false),
        .init(mode: CSR_NOT_CONTAINING.rawValue, mask: 0, state: focused, matches: false),
        // containingAny
        .init(mode: CSR_CONTAINING_ANY.rawValue, mask: selected | focused, state: focused, matches: true),
        .init(mode: CSR_CONTAINING_ANY.rawValue, mask: selected | focused, state: highlighted, matches: false),
        .init(mode: CSR_CONTAINING_ANY.rawValue, mask: 0, state: 0, matches: false),
        .init(mode: CSR_CONTAINING_ANY.rawValue, mask: 0, state: focused, matches: false),
        // containingNone
        .init(mode: CSR_CONTAINING_NONE.rawValue, mask: selected | focused, state: highlighted, matches: true),
        .init(mode: CSR_CONTAINING_NONE.rawValue, mask: selected | focused, state: focused, matches: false),
        .init(mode: CSR_CONTAINING_NONE.rawValue, mask: 0, state: 0, matches: true),
        .init(mode: CSR_CONTAINING_NONE.rawValue, mask: 0, state: focused, matches: true),
    ]

    @Test("each mode matches by its formula, empty masks included", arguments: matchCases)
    func modeMatches(_ c: MatchCase) {
        let table = Table()
        table.set(1, 1, rule(csr_mode(c.mode), c.mask), 7)
        #expect(table.resolve(1, 1, c.state) == (c.matches ? 7 : nil))
        #expect(table.explain(1, 1, c.state).first?.matched == c.matches)
    }

    @Test func customPredicateDecides() {
        let table = Table()
        table.set(1, 1, custom(2), 5)  // state > 4
        #expect(table.resolve(1, 1, 4) == nil)
        #expect(table.resolve(1, 1, 5) == 5)
        #expect(table.explain(1, 1, 5).first?.rule.predicate_id == 2)
    }

    @Test func highestPriorityWinsWhateverTheOrder() {
        for order in [[0, 1, 2], [2, 1, 0], [1, 2, 0]] {
            let table = Table()
            let rules = [
                (rule(CSR_CONTAINING_ANY, selected), csr_value(1)),  // 500
                (rule(CSR_CONTAINING, selected), 2),  // 999
                (rule(CSR_EXACTLY, selected), 3),  // 1000
            ]
            for i in order { table.set(1, 1, rules[i].0, rules[i].1) }
            #expect(table.resolve(1, 1, selected) == 3, "order \(order)")
            #expect(table.resolve(1, 1, selected | focused) == 2, "order \(order)")
            #expect(table.resolve(1, 1, focused) == nil, "order \(order)")
        }
    }

    @Test func tiesGoToTheMostRecentlySetRule() {
        let table = Table()
        let any = rule(CSR_CONTAINING_ANY, selected)  // 500
        let none = rule(CSR_CONTAINING_NONE, focused)  // 500
        table.set(1, 1, any, 1)
        table.set(1, 1, none, 2)
        #expect(table.resolve(1, 1, selected) == 2)
        // Setting the older rule again (same identity) makes it the newest.
        table.set(1, 1, any, 3)
        #expect(table.resolve(1, 1, selected) == 3)
        #expect(table.log.values == [1])
        let candidates = table.explain(1, 1, selected)
        #expect(candidates.map(\.rule.value) == [3, 2])
        #expect(candidates[0].rule.sequence > candidates[1].rule.sequence)
    }

    @Test func identityIsModeMaskPriorityAndPredicate() {
        let table = Table()
        table.set(1, 1, rule(CSR_CONTAINING_ANY, selected), 1)
        table.set(1, 1, rule(CSR_CONTAINING_NONE, selected), 2)
        table.set(1, 1, rule(CSR_CONTAINING_ANY, selected, priority: 10), 3)
        table.set(1, 1, rule(CSR_CONTAINING_ANY, focused), 4)
        table.set(1, 1, custom(1), 5)
        table.set(1, 1, custom(2), 6)
        #expect(table.explain(1, 1, 0).count == 6)
        #expect(table.stats.rules == 6)
        #expect(table.log.values.isEmpty)
        table.set(1, 1, custom(1), 7)
        #expect(table.explain(1, 1, 0).count == 6)
        #expect(table.log.values == [5])
        #expect(table.log.predicateContexts == [1])
    }

    @Test func removeTakesOneRuleABindingOrATarget() {
        let table = Table()
        table.set(1, 1, rule(CSR_CONTAINING, selected, priority: 2000), 1)
        table.set(1, 1, rule(CSR_CONTAINING, 0), 2)
        table.set(1, 2, rule(CSR_CONTAINING, 0), 3)
        table.set(2, 1, rule(CSR_CONTAINING, 0), 4)
        #expect(table.resolve(1, 1, selected) == 1)

        #expect(table.remove(1, 1, rule(CSR_CONTAINING, focused)) == CSR_NOT_FOUND)
        #expect(table.remove(1, 1, rule(CSR_CONTAINING, selected)) == CSR_NOT_FOUND)  // other priority
        #expect(table.remove(1, 1, rule(CSR_CONTAINING, selected, priority: 2000)) == CSR_OK)
        #expect(table.resolve(1, 1, selected) == 2)
        #expect(table.log.values == [1])

        #expect(csr_remove_binding(table.pointer, 1, 1) == CSR_OK)
        #expect(csr_remove_binding(table.pointer, 1, 1) == CSR_NOT_FOUND)
        #expect(table.resolve(1, 1, selected) == nil)
        #expect(table.resolve(1, 2, selected) == 3)

        #expect(csr_remove_target(table.pointer, 1) == CSR_OK)
        #expect(csr_remove_target(table.pointer, 1) == CSR_NOT_FOUND)
        #expect(table.resolve(1, 2, selected) == nil)
        #expect(table.resolve(2, 1, selected) == 4)
        #expect(table.log.values == [1, 2, 3])

        csr_remove_all(table.pointer)
        #expect(table.resolve(2, 1, selected) == nil)
        #expect(table.stats.rules == 0 && table.stats.bindings == 0)
        #expect(table.log.values == [1, 2, 3, 4])
    }

    @Test func destroyReleasesEveryValueAndPredicateOnce() {
        let log: ReleaseLog
        do {
            let table = Table()
            log = table.log
            table.set(1, 1, rule(CSR_EXACTLY, 0), 1)
            table.set(1, 2, custom(3), 2)
            table.set(9, 1, rule(CSR_CONTAINING, selected), 3)
        }
        #expect(log.values.sorted() == [1, 2, 3])
        #expect(log.predicateContexts == [3])
    }

    @Test func explainListsCandidatesInResolutionOrder() {
        let table = Table()
        table.set(1, 1, rule(CSR_CONTAINING_NONE, disabled), 1)  // 500, seq 1
        table.set(1, 1, rule(CSR_EXACTLY, selected), 2)  // 1000
        table.set(1, 1, rule(CSR_CONTAINING, selected), 3)  // 999
        table.set(1, 1, rule(CSR_CONTAINING_ANY, focused), 4)  // 500, seq 4
        let candidates = table.explain(1, 1, selected | focused)
        #expect(candidates.map(\.rule.value) == [2, 3, 4, 1])
        #expect(candidates.map(\.matched) == [false, true, true, true])
        #expect(candidates.map(\.rule.priority) == [1000, 999, 500, 500])
        #expect(table.resolve(1, 1, selected | focused) == 3)
        #expect(table.explain(7, 7, 0).isEmpty)
        // A buffer smaller than the list: filled as far as it goes, count tells the total.
        var one = [csr_candidate()]
        var count = 0
        #expect(csr_explain(table.pointer, 1, 1, 0, &one, 1, &count) == CSR_OK)
        #expect(count == 4 && one[0].rule.value == 2)
    }

    @Test func diffListsOnlyChangedPairsInKeyOrder() throws {
        let table = Table()
        table.set(2, 1, rule(CSR_CONTAINING, selected), 10)
        table.set(1, 5, rule(CSR_CONTAINING, selected), 11)
        table.set(1, 3, rule(CSR_CONTAINING, highlighted), 12)  // does not change on `selected`
        table.set(1, 4, rule(CSR_CONTAINING_NONE, selected), 13)
        let expected = [
            Change(target: 1, keyPath: 4, old: 13, new: nil),
            Change(target: 1, keyPath: 5, old: nil, new: 11),
            Change(target: 2, keyPath: 1, old: nil, new: 10),
        ]
        #expect(try table.diff(0, selected).get() == expected)
        #expect(try table.diff(0, selected).get() == expected)  // cached
        #expect(try table.diff(selected, selected).get().isEmpty)
        #expect(table.stats.cached_diffs == 2)
        #expect(try table.diff(selected, 0).get().map(\.new) == [13, nil, nil])
    }

    /// Every kind of mutation must invalidate the warm resolution and the cached diff.
    @Test(arguments: ["set", "replace", "remove", "removeBinding", "removeTarget", "removeAll", "clearCache", "releaseCache"])
    func mutationsInvalidateCaches(_ mutation: String) throws {
        let table = Table()
        var model = ReferenceModel()
        func both(_ t: UInt32, _ k: UInt32, _ d: csr_descriptor, _ v: csr_value) {
            table.set(t, k, d, v); model.set(t, k, d, v)
        }
        both(1, 1, rule(CSR_CONTAINING, selected), 1)
        both(1, 1, rule(CSR_CONTAINING_NONE, selected), 2)
        both(1, 2, rule(CSR_EXACTLY, selected), 3)
        both(2, 1, rule(CSR_CONTAINING, 0), 4)
        // Warm the caches.
        for state in [0, selected] {
            for (t, k) in [(1, 1), (1, 2), (2, 1)] as [(UInt32, UInt32)] {
                _ = table.resolve(t, k, state)
            }
        }
        _ = try table.diff(0, selected).get()
        #expect(table.stats.cached_states == 2 && table.stats.cached_diffs == 1)

        switch mutation {
        case "set": both(1, 2, rule(CSR_CONTAINING_ANY, selected, priority: 2000), 5)
        case "replace": both(1, 1, rule(CSR_CONTAINING, selected), 6)
        case "remove":
            #expect(table.remove(1, 1, rule(CSR_CONTAINING, selected)) == CSR_OK)
            _ = model.remove(1, 1, rule(CSR_CONTAINING, selected))
        case "removeBinding":
            #expect(csr_remove_binding(table.pointer, 1, 2) == CSR_OK)
            _ = model.removeBindings { $0 == ReferenceModel.key(1, 2) }
        case "removeTarget":
            #expect(csr_remove_target(table.pointer, 1) == CSR_OK)
            _ = model.removeBindings { $0 >> 32 == 1 }
        case "removeAll":
            csr_remove_all(table.pointer)
            _ = model.removeBindings { _ in true }
        case "clearCache":
            csr_clear_cache(table.pointer)
            #expect(table.stats.cached_states == 2)  // the memory stays for reuse
        default:
            csr_release_cache(table.pointer)
            #expect(table.stats.cached_states == 0)
        }
        #expect(table.stats.cached_diffs == 0)
        for state in [0, selected] {
            for (t, k) in [(1, 1), (1, 2), (2, 1)] as [(UInt32, UInt32)] {
                #expect(table.resolve(t, k, state) == model.resolve(t, k, state), "\(t),\(k) in \(state)")
            }
        }
        #expect(try table.diff(0, selected).get() == model.diff(0, selected))
    }

    @Test func invalidArgumentsAreRejectedAndChangeNothing() {
        let table = Table()
        #expect(table.set(1, 1, rule(CSR_EXACTLY, 0), CSR_VALUE_MAX + 1) == CSR_ERR_INVALID)
        var noPredicate = custom(1)
        noPredicate.predicate = nil
        #expect(table.set(1, 1, noPredicate, 1) == CSR_ERR_INVALID)
        #expect(table.set(1, 1, rule(csr_mode(rawValue: 9), 0), 1) == CSR_ERR_INVALID)
        #expect(csr_set(table.pointer, 1, 1, nil, 1, nil) == CSR_ERR_INVALID)
        #expect(csr_set(nil, 1, 1, nil, 1, nil) == CSR_ERR_INVALID)
        #expect(csr_resolve(table.pointer, 1, 1, 0, nil) == CSR_ERR_INVALID)
        #expect(csr_table_create(nil, nil, nil) == CSR_ERR_INVALID)
        #expect(table.stats.rules == 0)
        #expect(table.set(1, 1, rule(CSR_EXACTLY, 0), CSR_VALUE_MAX) == CSR_OK)
        #expect(table.resolve(1, 1, 0) == CSR_VALUE_MAX)
    }

    @Test func statsCountRulesAndMemory() throws {
        let table = Table()
        let empty = table.stats
        for target in UInt32(0)..<100 {
            table.set(target, 1, rule(CSR_CONTAINING, selected), target)
            table.set(target, 1, rule(CSR_EXACTLY, 0), target)
        }
        let filled = table.stats
        #expect(filled.rules == 200 && filled.bindings == 100)
        #expect(filled.rule_bytes > empty.rule_bytes + 200 * 32)
        #expect(filled.cache_bytes == 0)
        _ = try table.diff(0, selected).get()
        #expect(table.stats.cache_bytes > 2 * 100 * 4)
        let cached = table.stats.cache_bytes
        csr_clear_cache(table.pointer)
        #expect(table.stats.cache_bytes > 0 && table.stats.cache_bytes <= cached)
        #expect(table.stats.cached_diffs == 0)
        csr_release_cache(table.pointer)
        #expect(table.stats.cache_bytes == 0)
    }

    @Test func slotsAreReusedAndCachesGrowWithTheTable() {
        let table = Table()
        table.set(1, 1, rule(CSR_CONTAINING, 0), 1)
        #expect(table.resolve(1, 1, 0) == 1)  // a cache sized for one binding
        for k in UInt32(2)...40 { table.set(1, k, rule(CSR_CONTAINING, 0), k) }
        for k in UInt32(1)...40 { #expect(table.resolve(1, k, 0) == k) }
        for k in UInt32(1)...20 { csr_remove_binding(table.pointer, 1, k) }
        for k in UInt32(41)...60 { table.set(1, k, rule(CSR_CONTAINING_NONE, selected), k) }
        for k in UInt32(1)...20 { #expect(table.resolve(1, k, 0) == nil) }
        for k in UInt32(21)...60 { #expect(table.resolve(1, k, 0) == k) }
        for k in UInt32(41)...60 { #expect(table.resolve(1, k, selected) == nil) }
    }
}
