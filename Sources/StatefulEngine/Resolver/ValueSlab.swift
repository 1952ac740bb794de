// A resolver's bound values, by the handles the C table stores, and what the table let go of.

internal import CStateResolver

/// A ``ValueBox`` of any type: a class, so that holding and comparing one costs a pointer.
@usableFromInline
package class AnyValueBox {
    @usableFromInline init() {}

    var anyValue: Any { internalInconsistency("AnyValueBox is abstract") }

    /// Whether the values of two boxes of one type are equal: nil when the type is not
    /// `Equatable` (checked at run time) or the boxes hold different types.
    func isEqual(to other: AnyValueBox) -> Bool? { internalInconsistency("AnyValueBox is abstract") }
}

/// A value boxed with its static type, so a setter unboxes it without a dynamic cast.
///
/// The binding entry points box where they are inlined, in the caller's code, where the box's
/// type is known (a generic type's metadata looked up in unspecialised code costs about 330
/// instructions).
@usableFromInline
package final class ValueBox<Value>: AnyValueBox {
    /// The value; `var` only so that the direct access can take its address (never set).
    @usableFromInline @exclusivity(unchecked) var value: Value
    @inlinable package init(_ value: Value) {
        self.value = value
        super.init()
    }

    override var anyValue: Any { value }

    override func isEqual(to other: AnyValueBox) -> Bool? {
        guard let other = other as? ValueBox<Value>, let type = Value.self as? any Equatable.Type else { return nil }
        return areEqual(type, value, other.value)
    }
}

/// `a == b` for values of the `Equatable` type `type` (opened from an existential).
private func areEqual<E: Equatable>(_ type: E.Type, _ a: Any, _ b: Any) -> Bool? {
    guard let a = a as? E, let b = b as? E else { return nil }
    return a == b
}

/// The values of a resolver's rules, addressed by the handles the C table stores. Freed
/// handles are reused (a free list), so a long-lived control does not grow with churn.
///
/// Each value also gets a *version*, unique for the slab's lifetime (a 64-bit counter): a
/// binding records the version it wrote, so telling whether a property already holds a value
/// compares two integers and touches no reference count, and a reused handle never passes for
/// the value it held before.
final class ValueSlab {
    struct Entry {
        /// The box, nil once freed. The slab holds one reference count on it, taken and given
        /// back by hand, so that the apply loop borrows the box by its address without touching
        /// it (and an entry is two words).
        var box: Unmanaged<AnyValueBox>?
        var version: UInt64
    }

    // Unchecked, as the resolver's parts are (see StateResolver): no access lasts across user code.
    @exclusivity(unchecked) private var entries: [Entry] = []
    @exclusivity(unchecked) private var freeHandles: [csr_value] = []
    /// The last version handed out; 0 stands for a binding's default value.
    @exclusivity(unchecked) private var lastVersion: UInt64 = 0

    /// The number of values held.
    var count: Int { entries.count - freeHandles.count }

    /// The number of handles ever handed out (held plus free).
    var capacity: Int { entries.count }

    func insert(_ value: AnyValueBox) throws(ResolverError) -> csr_value {
        lastVersion += 1
        if let handle = freeHandles.popLast() {
            entries[Int(handle)] = Entry(box: .passRetained(value), version: lastVersion)
            return handle
        }
        guard entries.count <= Int(CSR_VALUE_MAX) else { throw .tooManyValues }
        entries.append(Entry(box: .passRetained(value), version: lastVersion))
        return csr_value(entries.count - 1)
    }

    /// Frees `handle`. The value itself is kept in ``released`` until ``drainReleased()``, so
    /// that no value's deinit (user code) runs while the C table calls back mid-mutation.
    func remove(_ handle: csr_value) {
        guard let box = entries[Int(handle)].box else { internalInconsistency("value handle \(handle) released twice") }
        entries[Int(handle)].box = nil
        freeHandles.append(handle)
        released.append(box.takeRetainedValue())
    }

    /// Takes back what the table holds for a rule it lets go of (or refused): the value at
    /// `handle`, and the retain on the predicate box in `predicateContext`, both held until
    /// ``drainReleased()``.
    func releaseRule(_ handle: csr_value, predicateContext: UnsafeMutableRawPointer?) {
        if !isRemovingAll { remove(handle) }
        if let predicateContext { release(Unmanaged<PredicateBox>.fromOpaque(predicateContext).takeRetainedValue()) }
    }

    /// Whether ``removeAll(_:)`` runs: the table lets go of every value, taken back at once.
    @exclusivity(unchecked) private var isRemovingAll = false

    /// Frees every handle: `removeRules` makes the table let go of all its rules (its calls
    /// back release their predicates only), and the values are returned in one array, in the
    /// order of their handles, for the caller to ``release(_:)`` once the resolver is consistent
    /// (their deinits may call back), as ``drainReleased()`` releases those of ``remove(_:)``.
    ///
    /// - Complexity: O(1).
    func removeAll(_ removeRules: () -> Void) -> [Entry] {
        isRemovingAll = true
        removeRules()
        isRemovingAll = false
        defer { (entries, freeHandles) = ([], []) }
        return entries
    }

    /// Releases the values of entries ``removeAll(_:)`` returned, in order.
    ///
    /// - Complexity: O(*n*) in the entries.
    static func release(_ entries: [Entry]) {
        for entry in entries { entry.box?.release() }
    }

    deinit { Self.release(entries) }

    /// Values (and predicates) the table let go of, not yet released.
    @exclusivity(unchecked) private var released: [AnyObject] = []

    /// The ids of the predicates released since the resolver last took them (see
    /// ``StateResolver/drainReleased()``).
    @exclusivity(unchecked) private(set) var releasedPredicateIDs: [UInt64] = []

    /// Holds a predicate the table let go of until ``drainReleased()``.
    func release(_ predicate: PredicateBox) {
        released.append(predicate)
        releasedPredicateIDs.append(predicate.id)
    }

    /// The ids of the predicates released since the last call.
    func takeReleasedPredicateIDs() -> [UInt64] {
        let ids = releasedPredicateIDs
        releasedPredicateIDs = []
        return ids
    }

    /// Whether anything waits for ``drainReleased()``.
    var hasReleased: Bool { !released.isEmpty }

    /// Releases what the table let go of. Deinits run here and may call back into the resolver
    /// (what they release is released by the same loop).
    func drainReleased() {
        while let value = released.popLast() { _ = value }
    }

    subscript(handle: csr_value) -> AnyValueBox {
        guard let box = entries[Int(handle)].box else {
            internalInconsistency("value handle \(handle) used after release")
        }
        return box.takeUnretainedValue()
    }

    /// The version of the value at `handle` (see ``ValueSlab``).
    @inline(__always)
    func version(_ handle: csr_value) -> UInt64 { entries[Int(handle)].version }

    /// The address of the box at `handle`, borrowed: the slab keeps the box alive until the
    /// table releases it and ``drainReleased()`` runs (see ``PropertyWriter`` for why a write
    /// is done with it by then).
    @inline(__always)
    func boxAddress(_ handle: csr_value) -> UnsafeRawPointer { UnsafeRawPointer(entries[Int(handle)].box.unsafelyUnwrapped.toOpaque()) }

    static func address(of box: AnyValueBox) -> UnsafeRawPointer { UnsafeRawPointer(Unmanaged.passUnretained(box).toOpaque()) }
}

/// A custom predicate handed to C as context; the table holds one retain per rule.
final class PredicateBox {
    /// The id of the descriptor's name in its resolver.
    let id: UInt64
    let predicate: @Sendable (ControlState) -> Bool
    init(id: UInt64, _ predicate: @escaping @Sendable (ControlState) -> Bool) { (self.id, self.predicate) = (id, predicate) }
}
