import SeededRandom
import CStateResolver
import Testing

/// Random operations against the reference model: every resolve, diff and explain must agree.
@Suite("C resolver: randomized differential test")
struct DifferentialTests {
    static let states: [UInt64] = [0, 1, 2, 4, 5, 6, 8, 12, 13, 0x10000, 0x10004, 0x30005, 15]
    static let masks: [UInt64] = [0, 1, 4, 5, 6, 8, 12, 0x10000, 0x20004]
    static let modes = [
        CSR_EXACTLY, CSR_CONTAINING, CSR_NOT_CONTAINING, CSR_CONTAINING_ANY,
        CSR_CONTAINING_NONE, CSR_CUSTOM,
    ]

    static func randomDescriptor(_ rng: inout SplitMix64) -> csr_descriptor {
        let mode = modes.randomElement(using: &rng)!
        // Few priorities, so that ties are common.
        let priority: Int32? = Bool.random(using: &rng) ? nil : [500, 750, 999, 1000].randomElement(using: &rng)
        if mode == CSR_CUSTOM { return custom(TestPredicate.ids.randomElement(using: &rng)!, priority: priority ?? 600) }
        return rule(mode, masks.randomElement(using: &rng)!, priority: priority)
    }

    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func agreesWithTheReferenceModel(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let table = Table()
        var model = ReferenceModel()
        var live: [csr_value: Int] = [:]  // value -> number of rules holding it
        var nextValue: csr_value = 0
        func released(_ values: [csr_value]) { for v in values { live[v, default: 0] -= 1 } }

        for step in 0..<30_000 {
            let t = UInt32.random(in: 0..<4, using: &rng), k = UInt32.random(in: 0..<3, using: &rng)
            switch Int.random(in: 0..<100, using: &rng) {
            case 0..<35:
                let d = Self.randomDescriptor(&rng)
                nextValue += 1
                try #require(table.set(t, k, d, nextValue) == CSR_OK)
                if let old = model.set(t, k, d, nextValue) { released([old]) }
                live[nextValue] = 1
            case 35..<45:
                let d = Self.randomDescriptor(&rng)
                let expected = model.remove(t, k, d)
                try #require(table.remove(t, k, d) == (expected == nil ? CSR_NOT_FOUND : CSR_OK), "step \(step)")
                if let expected { released([expected]) }
            case 45..<48:
                let removed = model.removeBindings { $0 == ReferenceModel.key(t, k) }
                try #require(csr_remove_binding(table.pointer, t, k) == (removed.isEmpty ? CSR_NOT_FOUND : CSR_OK))
                released(removed)
            case 48..<50:
                let removed = model.removeBindings { $0 >> 32 == UInt64(t) }
                try #require(csr_remove_target(table.pointer, t) == (removed.isEmpty ? CSR_NOT_FOUND : CSR_OK))
                released(removed)
            case 50:
                if Bool.random(using: &rng) { csr_clear_cache(table.pointer) } else { csr_release_cache(table.pointer) }
            case 51..<80:
                let s = Self.states.randomElement(using: &rng)!
                try #require(table.resolve(t, k, s) == model.resolve(t, k, s), "step \(step): resolve \(t),\(k) in \(s)")
            case 80..<95:
                let from = Self.states.randomElement(using: &rng)!, to = Self.states.randomElement(using: &rng)!
                try #require(try table.diff(from, to).get() == model.diff(from, to), "step \(step): diff \(from) -> \(to)")
            default:
                let s = Self.states.randomElement(using: &rng)!
                let candidates = table.explain(t, k, s)
                let ordered = model.ordered(t, k)
                try #require(candidates.map(\.rule.value) == ordered.map(\.value), "step \(step): explain order")
                try #require(candidates.map(\.matched) == ordered.map { ReferenceModel.matches($0, s) })
            }
        }
        #expect(table.stats.rules == model.ruleCount)
        #expect(table.stats.bindings == model.bindings.count)
        // Every value handle was released exactly once when its rule went away, and only then.
        #expect(live.values.allSatisfy { $0 == 0 || $0 == 1 })
        #expect(Set(live.filter { $0.value == 1 }.keys) == Set(model.bindings.values.flatMap { $0.map(\.value) }))
        #expect(table.log.values.count == Set(table.log.values).count)
    }
}
