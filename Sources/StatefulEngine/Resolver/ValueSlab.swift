internal import CStateResolver

/// A value boxed with its static type, so a setter unboxes it without a dynamic cast.
final class ValueBox<Value>: AnyValueBox {
    let value: Value
    init(_ value: Value) { self.value = value }
    var anyValue: Any { value }
}

/// A ``ValueBox`` of any type.
protocol AnyValueBox: AnyObject {
    var anyValue: Any { get }
}

/// The values of a resolver's rules, addressed by the handles the C table stores. Freed
/// handles are reused (a free list), so a long-lived control does not grow with churn.
final class ValueSlab {
    private var values: [AnyValueBox?] = []
    private var freeHandles: [csr_value] = []

    /// The number of values held.
    var count: Int { values.count - freeHandles.count }

    /// The number of handles ever handed out (held plus free).
    var capacity: Int { values.count }

    func insert(_ value: AnyValueBox) throws(ResolverError) -> csr_value {
        if let handle = freeHandles.popLast() {
            values[Int(handle)] = value
            return handle
        }
        guard values.count <= Int(CSR_VALUE_MAX) else { throw .tooManyValues }
        values.append(value)
        return csr_value(values.count - 1)
    }

    func remove(_ handle: csr_value) {
        if values[Int(handle)] == nil { internalInconsistency("value handle \(handle) released twice") }
        values[Int(handle)] = nil
        freeHandles.append(handle)
    }

    subscript(handle: csr_value) -> AnyValueBox {
        guard let value = values[Int(handle)] else {
            internalInconsistency("value handle \(handle) used after release")
        }
        return value
    }
}

/// A custom predicate handed to C as context; the table holds one retain per rule.
final class PredicateBox {
    let predicate: @Sendable (ControlState) -> Bool
    init(_ predicate: @escaping @Sendable (ControlState) -> Bool) { self.predicate = predicate }
}
