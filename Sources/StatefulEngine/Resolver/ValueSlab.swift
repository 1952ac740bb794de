internal import CStateResolver

/// A ``ValueBox`` of any type: a class, so that holding and comparing one costs a pointer.
class AnyValueBox {
    var anyValue: Any { internalInconsistency("AnyValueBox is abstract") }
}

/// A value boxed with its static type, so a setter unboxes it without a dynamic cast.
final class ValueBox<Value>: AnyValueBox {
    let value: Value
    init(_ value: Value) { self.value = value }
    override var anyValue: Any { value }
}

/// The values of a resolver's rules, addressed by the handles the C table stores. Freed
/// handles are reused (a free list), so a long-lived control does not grow with churn.
final class ValueSlab {
    @exclusivity(unchecked) private var values: [AnyValueBox?] = []
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

    /// Frees `handle`. The value itself is kept in ``released`` until ``drainReleased()``, so
    /// that no value's deinit (user code) runs while the C table calls back mid-mutation.
    func remove(_ handle: csr_value) {
        guard let value = values[Int(handle)] else { internalInconsistency("value handle \(handle) released twice") }
        released.append(value)
        values[Int(handle)] = nil
        freeHandles.append(handle)
    }

    /// Values (and predicates) the table let go of, not yet released.
    @exclusivity(unchecked) private var released: [AnyObject] = []

    /// Holds a predicate the table let go of until ``drainReleased()``.
    func release(_ predicate: PredicateBox) { released.append(predicate) }

    /// Releases what the table let go of. Deinits run here and may call back into the resolver
    /// (what they release is released by the same loop).
    func drainReleased() {
        while let value = released.popLast() { _ = value }
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
