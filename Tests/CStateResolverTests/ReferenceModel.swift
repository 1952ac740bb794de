import SeededRandom
import CStateResolver
import StatefulEngine

/// The resolution semantics of the "State resolution" article
/// (Sources/StatefulControls/StatefulControls.docc/StateResolution.md), written the obvious way
/// (filter, then max by priority and recency) to check the C table against.
struct ReferenceModel {
    struct Rule {
        var mode: csr_mode, mask: UInt64, priority: Int32, predicateID: UInt64
        var value: csr_value, sequence: Int
    }

    private(set) var bindings: [UInt64: [Rule]] = [:]
    private var sequence = 0

    static func key(_ target: UInt32, _ keyPath: UInt32) -> UInt64 { UInt64(target) << 32 | UInt64(keyPath) }

    /// Whether a rule matches: the library's one Swift formula (`StateDescriptor.matches`)
    /// for the five mask modes, the test predicate for custom rules. (The C resolver and the C
    /// reference model in Tests/CResolverChecks keep their own copies on purpose: they are the
    /// implementations under test.)
    static func matches(_ r: Rule, _ s: UInt64) -> Bool {
        guard r.mode != CSR_CUSTOM else { return TestPredicate.matches(r.predicateID, s) }
        let mask = ControlState(rawValue: UInt(r.mask))
        let descriptor: StateDescriptor =
            switch r.mode {
            case CSR_EXACTLY: .exactly(mask)
            case CSR_CONTAINING: .containing(mask)
            case CSR_NOT_CONTAINING: .notContaining(mask)
            case CSR_CONTAINING_ANY: .containingAny(mask)
            default: .containingNone(mask)
            }
        return descriptor.matches(ControlState(rawValue: UInt(s)))
    }

    private static func sameIdentity(_ r: Rule, _ d: csr_descriptor) -> Bool {
        r.mode == d.mode && r.mask == d.mask && r.priority == d.priority
            && (d.mode != CSR_CUSTOM || r.predicateID == d.predicate_id)
    }

    /// Sets a rule; returns the value it replaced.
    @discardableResult
    mutating func set(_ t: UInt32, _ k: UInt32, _ d: csr_descriptor, _ value: csr_value) -> csr_value? {
        sequence += 1
        let new = Rule(
            mode: d.mode, mask: d.mask, priority: d.priority,
            predicateID: d.mode == CSR_CUSTOM ? d.predicate_id : 0, value: value, sequence: sequence)
        var rules = bindings[Self.key(t, k), default: []]
        var replaced: csr_value?
        if let i = rules.firstIndex(where: { Self.sameIdentity($0, d) }) {
            replaced = rules[i].value
            rules[i] = new
        } else {
            rules.append(new)
        }
        bindings[Self.key(t, k)] = rules
        return replaced
    }

    /// Removes a rule; returns its value, or nil when there was none.
    mutating func remove(_ t: UInt32, _ k: UInt32, _ d: csr_descriptor) -> csr_value? {
        guard var rules = bindings[Self.key(t, k)],
            let i = rules.firstIndex(where: { Self.sameIdentity($0, d) })
        else { return nil }
        let value = rules.remove(at: i).value
        bindings[Self.key(t, k)] = rules.isEmpty ? nil : rules
        return value
    }

    /// Removes every rule whose key satisfies `condition`; returns their values.
    mutating func removeBindings(where condition: (UInt64) -> Bool) -> [csr_value] {
        let keys = bindings.keys.filter(condition)
        return keys.flatMap { bindings.removeValue(forKey: $0)!.map(\.value) }
    }

    func rules(_ t: UInt32, _ k: UInt32) -> [Rule] { bindings[Self.key(t, k)] ?? [] }

    func resolve(_ t: UInt32, _ k: UInt32, _ s: UInt64) -> csr_value? {
        rules(t, k).filter { Self.matches($0, s) }
            .max { ($0.priority, $0.sequence) < ($1.priority, $1.sequence) }?.value
    }

    func diff(_ from: UInt64, _ to: UInt64) -> [Change] {
        bindings.keys.sorted().compactMap { key in
            let t = UInt32(key >> 32), k = UInt32(truncatingIfNeeded: key)
            let old = resolve(t, k, from), new = resolve(t, k, to)
            return old == new ? nil : Change(target: t, keyPath: k, old: old, new: new)
        }
    }

    /// Rules in resolution order, as csr_explain lists them.
    func ordered(_ t: UInt32, _ k: UInt32) -> [Rule] {
        rules(t, k).sorted { ($0.priority, $0.sequence) > ($1.priority, $1.sequence) }
    }

    var ruleCount: Int { bindings.values.reduce(0) { $0 + $1.count } }
}
