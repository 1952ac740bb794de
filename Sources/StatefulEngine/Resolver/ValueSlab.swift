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
    /// A hash of the value's bits (see ``hasSameBits(as:)``).
    var hashOfBits: Int { internalInconsistency("AnyValueBox is abstract") }
    /// Whether `other` holds a value of the same type with the same bits: the same value, which
    /// may be written in place of this one. Values that are equal may differ in their bits
    /// (−0.0 and 0.0, two objects that compare equal, canonically equivalent strings), and are
    /// told apart. Every byte of the value's size is compared, padding too: copies of a value
    /// with padding may differ there (never in the bytes that hold data).
    func hasSameBits(as other: AnyValueBox) -> Bool { internalInconsistency("AnyValueBox is abstract") }
}

/// A value boxed with its static type, so a setter unboxes it without a dynamic cast.
///
/// The binding entry points box where they are inlined, in the caller's code, where the box's
/// type is known (unspecialised code would look a generic type's metadata up at each bind).
@usableFromInline
package final class ValueBox<Value>: AnyValueBox {
    /// The value; `var` only so that the direct access can take its address (never set).
    @usableFromInline @exclusivity(unchecked) var value: Value
    @inlinable package init(_ value: Value) {
        self.value = value
        super.init()
    }

    override var anyValue: Any { value }

    override var hashOfBits: Int {
        withUnsafeBytes(of: value) { bytes in
            var hasher = Hasher()
            hasher.combine(bytes: bytes)
            return hasher.finalize()
        }
    }
    override func hasSameBits(as other: AnyValueBox) -> Bool {
        guard let other = other as? ValueBox<Value> else { return false }
        return withUnsafeBytes(of: value) { mine in withUnsafeBytes(of: other.value) { mine.elementsEqual($0) } }
    }
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

/// A rule's value as the caller's code made it for the slab: a trivial value of at most 8
/// bytes as its bytes, anything else boxed (see ``ValueSlab``).
///
/// Made where the binding entry points are inlined, where `Value` is known: the choice is a
/// constant there, and a box is made with its type's metadata at hand.
@usableFromInline
package struct RuleValue<Value> {
    /// The box, nil for an inline value.
    @usableFromInline let box: ValueBox<Value>?
    /// An inline value's bytes (the rest zero); 0 for a boxed one.
    @usableFromInline let bits: UInt64

    @inlinable
    package init(_ value: Value) {
        if _isPOD(Value.self) && MemoryLayout<Value>.size <= 8 && MemoryLayout<Value>.alignment <= 8 {
            var bits: UInt64 = 0
            withUnsafeMutableBytes(of: &bits) { $0.storeBytes(of: value, as: Value.self) }
            (box, self.bits) = (nil, bits)
        } else {
            (box, bits) = (ValueBox(value), 0)
        }
    }

    /// The value in a box: the rule's, or a new one for an inline value.
    var boxed: ValueBox<Value> { box ?? ValueBox(ValueSlab.value(ofBits: bits)) }
}

/// A rule value of a `Sendable` type may be shared across resolvers of any thread (a
/// ``StateValues`` list holds its values so): its box's value is never set after it is made.
extension RuleValue: @unchecked Sendable where Value: Sendable {}

/// The values of a resolver's rules, addressed by the handles the C table stores. Freed
/// handles are reused (a free list), so a long-lived control does not grow with churn.
///
/// A trivial value of at most 8 bytes (an `Int`, a `Double`, a `Bool`, a small enum or
/// struct without references) is held *inline*, its bytes in its entry; any other in a
/// ``ValueBox`` the slab holds a reference to: most bound values take no allocation of their
/// own. An inline value's type is its binding's: ``box(_:of:)`` boxes it again for queries.
///
/// Each value also gets a *version*, unique for the slab's lifetime (a 64-bit counter, whose
/// top bit says the value is inline): a binding records the version it wrote, so telling
/// whether a property already holds a value compares two integers and touches no reference
/// count, and a reused handle never passes for the value it held before.
///
/// Held in place by its resolver (no object of its own), which the C table's release callback
/// reaches through the resolver: no access to the slab lasts across a call into the table or
/// user code (values' deinits run from ``popReleased()``'s caller). Noncopyable: it owns a
/// reference count on each box, which its deinit gives back.
struct ValueSlab: ~Copyable {
    struct Entry {
        /// The box's address — the slab holds one reference count on it, taken and given back
        /// by hand, so that the apply loop borrows the box by its address without touching it
        /// — or an inline value's bytes.
        var word: UInt64
        /// The value's version (see ``ValueSlab``); 0 once freed.
        var version: UInt64

        /// The box, nil for an inline value or a freed entry.
        var box: Unmanaged<AnyValueBox>? {
            version == 0 || ValueSlab.isInline(version)
                ? nil : Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: UInt(word)).unsafelyUnwrapped)
        }
    }

    /// The top bit of an inline value's version.
    private static let inlineFlag: UInt64 = 1 << 63

    /// Whether the value of `version` is held inline.
    @inline(__always)
    static func isInline(_ version: UInt64) -> Bool { version & inlineFlag != 0 }

    /// The value whose bytes an inline entry holds.
    static func value<Value>(ofBits bits: UInt64) -> Value { withUnsafeBytes(of: bits) { $0.load(as: Value.self) } }

    private var entries: [Entry] = []
    private var freeHandles: [csr_value] = []
    /// The last version handed out; 0 stands for a binding's default value.
    private var lastVersion: UInt64 = 0

    /// The number of values held.
    var count: Int { entries.count - freeHandles.count }

    /// The number of handles ever handed out (held plus free).
    var capacity: Int { entries.count }

    /// Holds a rule's value (`box`, or inline `bits` when nil) and returns its handle.
    ///
    /// - Throws: ``ResolverError/tooManyValues`` when every handle is in use.
    mutating func insert(_ box: AnyValueBox?, inline bits: UInt64) throws(ResolverError) -> csr_value {
        guard freeHandles.count > 0 || entries.count <= Int(CSR_VALUE_MAX) else { throw .tooManyValues }
        lastVersion += 1
        let entry =
            if let box {
                Entry(word: UInt64(UInt(bitPattern: Unmanaged.passRetained(box).toOpaque())), version: lastVersion)
            } else {
                Entry(word: bits, version: lastVersion | Self.inlineFlag)
            }
        if let handle = freeHandles.popLast() {
            entries[Int(handle)] = entry
            return handle
        }
        entries.append(entry)
        return csr_value(entries.count - 1)
    }

    /// Frees `handle`. A box is kept in ``released`` until ``popReleased()`` hands it out, so
    /// that no value's deinit (user code) runs while the C table calls back mid-mutation.
    mutating func remove(_ handle: csr_value) {
        let entry = entries[Int(handle)]
        guard entry.version != 0 else { internalInconsistency("value handle \(handle) released twice") }
        entries[Int(handle)] = Entry(word: 0, version: 0)
        freeHandles.append(handle)
        if let box = entry.box { released.append(box.takeRetainedValue()) }
    }

    /// Takes back what the table holds for a rule it lets go of (or refused): the value at
    /// `handle` (unless every value is being taken back: see ``isRemovingAll``), and the retain
    /// on the predicate box in `predicateContext`, both held until ``popReleased()``.
    mutating func releaseRule(_ handle: csr_value, predicateContext: UnsafeMutableRawPointer?) {
        if !isRemovingAll { remove(handle) }
        if let predicateContext {
            let predicate = Unmanaged<PredicateBox>.fromOpaque(predicateContext).takeRetainedValue()
            released.append(predicate)
            releasedPredicateIDs.append(predicate.id)
        }
    }

    /// Set while the table lets go of every rule: their values are then taken back at once,
    /// by ``removeAll()``, and ``releaseRule(_:predicateContext:)`` releases their predicates
    /// only.
    var isRemovingAll = false

    /// Frees every handle, once the table let go of every rule (see ``isRemovingAll``): the
    /// values are returned in one array, in the order of their handles, for the caller to
    /// ``release(_:)`` once the resolver is consistent (their deinits may call back).
    ///
    /// - Complexity: O(1).
    mutating func removeAll() -> [Entry] {
        defer { (entries, freeHandles) = ([], []) }
        return entries
    }

    /// Releases the values of entries ``removeAll()`` returned, in order.
    ///
    /// - Complexity: O(*n*) in the entries.
    static func release(_ entries: [Entry]) {
        for entry in entries { entry.box?.release() }
    }

    deinit { Self.release(entries) }

    /// Objects waiting to be released: values and predicates the table let go of, and
    /// predicates a custom name no longer carries (see ``park(_:)``).
    private var released: [AnyObject] = []
    /// The ids of the predicates the table let go of with their rules, not yet counted out of
    /// their names (see ``popReleasedPredicateID()``).
    private var releasedPredicateIDs: [UInt64] = []

    /// Whether anything waits to be released (see ``popReleased()``); a released predicate's
    /// id waits with it.
    var hasReleased: Bool { !released.isEmpty }

    /// Holds `object` until the resolver drains what waits, outside any access to its parts: a
    /// name's predicate that a newer one replaced, or that its name, forgotten, carried.
    mutating func park(_ object: AnyObject) { released.append(object) }

    /// The last object waiting to be released, for the caller to release (its deinit may call
    /// back, and must run outside any access to the slab); nil when none waits.
    mutating func popReleased() -> AnyObject? { released.popLast() }

    /// The id of a predicate the table let go of with its rule, for the caller to count out of
    /// its name; nil when none waits.
    mutating func popReleasedPredicateID() -> UInt64? { releasedPredicateIDs.popLast() }

    /// The value at `handle` in a box, for queries: its own box, or a new one for an inline
    /// value (of `binding`'s type, whose rule it is).
    func box(_ handle: csr_value, of binding: Binding) -> AnyValueBox {
        let entry = entries[Int(handle)]
        guard entry.version != 0 else { internalInconsistency("value handle \(handle) used after release") }
        return entry.box?.takeUnretainedValue() ?? binding.box(inline: entry.word)
    }

    /// The version of the value at `handle` (see ``ValueSlab``).
    @inline(__always)
    func version(_ handle: csr_value) -> UInt64 { entries[Int(handle)].version }

    /// The entry's word at `handle`: the address of its box, borrowed — the slab keeps the box
    /// alive until the table releases it and its resolver drains what it let go of (see
    /// ``AnyPropertyWriter``: a writer copies the value before any user code runs) — or an
    /// inline value's bytes.
    @inline(__always)
    func word(_ handle: csr_value) -> UInt64 { entries[Int(handle)].word }

    static func address(of box: AnyValueBox) -> UnsafeRawPointer { UnsafeRawPointer(Unmanaged.passUnretained(box).toOpaque()) }
}

/// A custom predicate handed to C as context; the table holds one retain per rule.
final class PredicateBox {
    /// The id of the descriptor's name in its resolver.
    let id: UInt64
    let predicate: @Sendable (ControlState) -> Bool
    init(id: UInt64, _ predicate: @escaping @Sendable (ControlState) -> Bool) { (self.id, self.predicate) = (id, predicate) }
}

// MARK: Invariants

extension ValueSlab {
    /// The first broken promise of the slab, nil when all hold (see
    /// ``StateResolver/checkInvariants()``): the free handles are distinct, in range, and exactly
    /// the freed entries; the values held have distinct versions, each handed out already.
    ///
    /// - Complexity: O(*n*) in the handles.
    func invariantViolation() -> String? {
        var free = Set<csr_value>()
        for handle in freeHandles {
            guard Int(handle) < entries.count, entries[Int(handle)].version == 0, free.insert(handle).inserted else {
                return "free handle \(handle) out of range, held or listed twice"
            }
        }
        var versions = Set<UInt64>()
        for (handle, entry) in entries.enumerated() where entry.version != 0 {
            guard entry.version & ~Self.inlineFlag <= lastVersion, versions.insert(entry.version).inserted else {
                return "handle \(handle): version \(entry.version) reused or never handed out"
            }
        }
        return versions.count + free.count == entries.count ? nil : "a freed handle is not on the free list"
    }

    /// Whether `handle` holds a value (handed out and not freed).
    func holds(_ handle: csr_value) -> Bool { Int(handle) < entries.count && entries[Int(handle)].version != 0 }

    /// Sets the version of the value at `handle`, breaking the slab on purpose for the test that
    /// sees ``invariantViolation()`` report it; returns the version it had, to put back.
    mutating func swapVersionForTesting(_ handle: csr_value, _ version: UInt64) -> UInt64 {
        defer { entries[Int(handle)].version = version }
        return entries[Int(handle)].version
    }
}
