import CStateResolver

/// Records what a table releases, so tests can check ownership of value handles.
final class ReleaseLog {
    var values: [csr_value] = []
    var predicateContexts: [Int] = []
}

/// A C table owned by a test, with its release log.
final class Table {
    let pointer: OpaquePointer
    let log = ReleaseLog()

    init() {
        var table: OpaquePointer?
        let status = csr_table_create(
            &table,
            { value, predicateContext, context in
                let log = Unmanaged<ReleaseLog>.fromOpaque(context!).takeUnretainedValue()
                log.values.append(value)
                if let predicateContext { log.predicateContexts.append(Int(bitPattern: predicateContext)) }
            }, Unmanaged.passUnretained(log).toOpaque())
        precondition(status == CSR_OK && table != nil, "csr_table_create failed: \(status)")
        pointer = table!
    }

    deinit { csr_table_destroy(pointer) }

    @discardableResult
    func set(_ target: UInt32, _ keyPath: UInt32, _ descriptor: csr_descriptor, _ value: csr_value) -> csr_status {
        withUnsafePointer(to: descriptor) { csr_set(pointer, target, keyPath, $0, value, nil) }
    }

    @discardableResult
    func remove(_ target: UInt32, _ keyPath: UInt32, _ descriptor: csr_descriptor) -> csr_status {
        withUnsafePointer(to: descriptor) { csr_remove(pointer, target, keyPath, $0) }
    }

    /// The winning value, or nil for no match.
    func resolve(_ target: UInt32, _ keyPath: UInt32, _ state: UInt64) -> csr_value? {
        var value: csr_value = 0
        let status = csr_resolve(pointer, target, keyPath, state, &value)
        precondition(status == CSR_OK || status == CSR_NO_MATCH, "csr_resolve failed: \(status)")
        return status == CSR_OK ? value : nil
    }

    func explain(_ target: UInt32, _ keyPath: UInt32, _ state: UInt64) -> [csr_candidate] {
        var count = 0
        precondition(csr_explain(pointer, target, keyPath, state, nil, 0, &count) == CSR_OK)
        var candidates = [csr_candidate](repeating: csr_candidate(), count: count)
        precondition(csr_explain(pointer, target, keyPath, state, &candidates, count, &count) == CSR_OK)
        return candidates
    }

    /// The changes between two states, or the failing status.
    func diff(_ from: UInt64, _ to: UInt64) -> Result<[Change], StatusError> {
        var changes: UnsafePointer<csr_change>?
        var count = 0
        let status = csr_diff(pointer, from, to, &changes, &count)
        guard status == CSR_OK else { return .failure(StatusError(status: status)) }
        return .success(UnsafeBufferPointer(start: changes, count: count).map(Change.init))
    }

    var stats: csr_stats {
        var stats = csr_stats()
        csr_get_stats(pointer, &stats)
        return stats
    }
}

struct StatusError: Error, Equatable { let status: csr_status }

/// A csr_change that compares with ==, with nil for CSR_NO_VALUE.
struct Change: Equatable, CustomStringConvertible {
    let target: UInt32, keyPath: UInt32, old: csr_value?, new: csr_value?
    init(target: UInt32, keyPath: UInt32, old: csr_value?, new: csr_value?) {
        (self.target, self.keyPath, self.old, self.new) = (target, keyPath, old, new)
    }
    init(_ c: csr_change) {
        self.init(
            target: c.target, keyPath: c.key_path,
            old: c.old_value == CSR_NO_VALUE ? nil : c.old_value,
            new: c.new_value == CSR_NO_VALUE ? nil : c.new_value)
    }
    var description: String { "(\(target),\(keyPath)): \(old.map(String.init) ?? "-") -> \(new.map(String.init) ?? "-")" }
}

/// Default priorities (Sources/StatefulControls/StatefulControls.docc/StateResolution.md).
func defaultPriority(_ mode: csr_mode) -> Int32 {
    switch mode {
    case CSR_EXACTLY: 1000
    case CSR_CONTAINING: 999
    case CSR_NOT_CONTAINING: 750
    default: 500
    }
}

func rule(_ mode: csr_mode, _ mask: UInt64, priority: Int32? = nil) -> csr_descriptor {
    csr_descriptor(
        mode: mode, mask: mask, priority: priority ?? defaultPriority(mode),
        predicate: nil, predicate_context: nil, predicate_id: 0)
}

/// The test predicates, chosen by id; the context carries the id so each rule's context
/// can be traced through the release log.
enum TestPredicate {
    static let ids: [UInt64] = [1, 2, 3]

    static func matches(_ id: UInt64, _ state: UInt64) -> Bool {
        switch id {
        case 1: state.nonzeroBitCount % 2 == 0
        case 2: state > 4
        default: state & 0x10000 != 0
        }
    }

    static let function: csr_predicate_fn = { state, context in
        matches(UInt64(UInt(bitPattern: context)), state)
    }
}

func custom(_ id: UInt64, priority: Int32 = 600) -> csr_descriptor {
    csr_descriptor(
        mode: CSR_CUSTOM, mask: 0, priority: priority, predicate: TestPredicate.function,
        predicate_context: UnsafeMutableRawPointer(bitPattern: UInt(id)), predicate_id: id)
}
