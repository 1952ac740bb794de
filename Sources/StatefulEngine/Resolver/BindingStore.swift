// A resolver's bindings: the record of one bound (target, key path), which holds the property's
// default value, and the part that holds them all — by target and key path, by C slot for the
// apply loop, and the ones removed during an apply, kept alive until it ends.

internal import CStateResolver

/// The bindings of a resolver: owned by their target's entry (targets are numbered densely, so
/// a key — target id and key path id — is found by an array index and a search among the
/// target's few key paths, with no hashing), indexed by the C table's slot of their pair (see
/// `csr_slot`) so that a change of a diff finds its binding without a lookup, and retired —
/// kept alive — when removed while an apply may be writing them.
///
/// The slot index holds unretained references: the store owns every binding it indexes, and
/// keeps those removed during an apply in ``retired``, so the apply loop borrows each binding
/// without a retain. The index follows the table as it changes: a binding is indexed as soon
/// as `csr_set` gives it its slot, before any user code runs, so an entry the table reuses is
/// replaced before a diff can name it. An entry whose pair the table let go of (until the
/// binding is forgotten) is never named by a diff. The apply loop therefore trusts the index
/// while its change list is current, and looks keys up once a setter has bound or removed
/// values.
struct BindingStore {
    /// The bindings of target id *i* at index *i* − 1.
    private var byTarget: ContiguousArray<TargetBindings> = []
    private var bySlot: ContiguousArray<Unmanaged<Binding>?> = []
    /// Bindings removed while an apply ran, until the outermost apply ends.
    private(set) var retired: [Binding] = []

    /// The number of bindings.
    private(set) var count = 0

    /// Whether no binding is held.
    var isEmpty: Bool { count == 0 }

    /// Every binding in first-bind order: by target id, then by key path id.
    ///
    /// - Complexity: O(*n*) in the bindings, plus sorting each target's few.
    var inKeyOrder: [Binding] { byTarget.flatMap { $0.sorted } }

    /// The keys of every binding, ascending: first-bind order (target id, then key path id).
    var sortedKeys: [UInt64] { inKeyOrder.map(\.key) }

    /// The binding of `key`.
    ///
    /// Out of line: the apply loop calls it only off its hot path (a change without slot, a
    /// stale change list), where its inlined search would take registers from the loop.
    ///
    /// - Complexity: O(*k*) in the target's bindings.
    subscript(key: UInt64) -> Binding? {
        @inline(never) get {
            guard let index = index(ofTarget: UInt32(key >> 32)) else { return nil }
            return byTarget[index].binding(UInt32(truncatingIfNeeded: key))
        }
    }

    /// The bindings of target id `target`, by key path id.
    func bindings(ofTarget target: UInt32) -> [Binding] {
        index(ofTarget: target).map { byTarget[$0].sorted } ?? []
    }

    /// Whether target id `target` has a binding.
    func hasBindings(ofTarget target: UInt32) -> Bool {
        index(ofTarget: target).map { !byTarget[$0].isEmpty } ?? false
    }

    /// The index in ``byTarget`` of target id `target`; nil for an id above any bound.
    @inline(__always)
    private func index(ofTarget target: UInt32) -> Int? {
        let index = Int(target) - 1
        return byTarget.indices.contains(index) ? index : nil
    }

    /// Adds `binding`, whose key is not held (not indexed by slot until ``index(_:at:)``).
    mutating func insert(_ binding: Binding) {
        let index = Int(binding.target.id) - 1
        while byTarget.count <= index { byTarget.append(TargetBindings()) }  // ids are dense: once
        byTarget[index].insert(binding)
        count += 1
    }

    /// Records `binding`'s C slot and indexes it there, growing the index as needed.
    ///
    /// - Complexity: Amortised O(1); the index grows to the highest slot.
    mutating func index(_ binding: Binding, at slot: UInt32) {
        if isIndexed(binding) { bySlot[Int(binding.slot)] = nil }  // the table gave it another slot
        binding.slot = slot
        if bySlot.count <= Int(slot) { bySlot.append(contentsOf: repeatElement(nil, count: Int(slot) + 1 - bySlot.count)) }
        bySlot[Int(slot)] = Unmanaged.passUnretained(binding)
    }

    /// Indexes every binding again, at the slot `slot(of:)` gives (nil: its pair has no slot,
    /// it is not indexed): for a resolver that moved to another table.
    ///
    /// - Complexity: O(*n*) in the bindings.
    mutating func reindex(_ slot: (Binding) -> UInt32?) {
        bySlot.removeAll(keepingCapacity: true)
        for targetBindings in byTarget {
            targetBindings.forEach { binding in
                if let slot = slot(binding) { index(binding, at: slot) }
            }
        }
    }

    /// Unindexes every binding, and marks each that holds a rule value as holding a value of a
    /// table left (``Binding/versionOfTableLeft``): for a resolver that moved to a table without
    /// rules. The tables it binds in next count their versions from the start, and a setter may
    /// bind before the defaults are written back: a new value must not be taken for written.
    mutating func forgetTable() {
        bySlot = []
        for targetBindings in byTarget {
            targetBindings.forEach { binding in
                if binding.writtenVersion != 0 { binding.writtenVersion = Binding.versionOfTableLeft }
            }
        }
    }

    /// The binding indexed at `slot`, unretained: the binding of the table's pair in that slot
    /// (see above), so the one a change of a current diff names; nil when that binding is gone
    /// (its target was purged).
    ///
    /// Separate from the key lookup so that the apply loop reads only the slot index: a call
    /// that borrows the store loads every field it uses.
    @inline(__always)
    func binding(inSlot slot: UInt32) -> Unmanaged<Binding>? {
        Int(slot) < bySlot.count ? bySlot[Int(slot)] : nil
    }

    /// Whether `binding` is indexed at its slot. A binding has one entry at most: the index
    /// holds no reference to a binding the store let go of.
    private func isIndexed(_ binding: Binding) -> Bool {
        Int(binding.slot) < bySlot.count && bySlot[Int(binding.slot)]?.toOpaque() == Unmanaged.passUnretained(binding).toOpaque()
    }

    /// Removes the binding of `key` and its slot entry; while an apply runs (`retiring`) the
    /// binding is kept in ``retired``, as the apply may be writing it.
    @discardableResult
    mutating func remove(_ key: UInt64, retiring: Bool) -> Binding? {
        guard let index = index(ofTarget: UInt32(key >> 32)), let binding = byTarget[index].remove(UInt32(truncatingIfNeeded: key)) else {
            return nil
        }
        count -= 1
        if isIndexed(binding) { bySlot[Int(binding.slot)] = nil }
        if retiring { retired.append(binding) }
        return binding
    }

    /// Removes every binding, and returns them for the caller to release once the store is
    /// consistent (their writers' and values' deinits may run); while an apply runs
    /// (`retiring`) they are kept in ``retired`` as well.
    ///
    /// They are returned by target, in first-bind order, about the order their memory was
    /// allocated: freed in that order, a million bindings take a third of the time they take in
    /// the order of a hash table.
    ///
    /// - Complexity: O(1), or O(*n*) in the bindings when `retiring`.
    mutating func removeAll(retiring: Bool) -> ContiguousArray<TargetBindings> {
        let removed = byTarget
        if retiring { retired.append(contentsOf: inKeyOrder) }
        (byTarget, bySlot, count) = ([], [], 0)
        return removed
    }

    /// The bindings whose property holds a value of a rule (not its default), in first-bind
    /// order (ascending keys).
    ///
    /// - Complexity: O(*n*) in the bindings.
    var holdingRuleValues: [Binding] {
        let holdsRuleValue = { (binding: Binding) in binding.writtenVersion != 0 }
        return byTarget.flatMap { $0.contains(where: holdsRuleValue) ? $0.sorted.filter(holdsRuleValue) : [] }
    }

    /// The retired bindings, no longer kept: the caller releases them (their writers' and
    /// values' deinits may run).
    mutating func takeRetired() -> [Binding] {
        let bindings = retired
        retired = []
        return bindings
    }
}

/// The bindings of one target: the first four inline, any others in an array, so that a target
/// with up to four bound properties costs no allocation (an array's header and slack cost more
/// than the bindings it would hold). Holds one binding per key path id, the inline ones first
/// and without gaps.
struct TargetBindings {
    private var inline: (Binding?, Binding?, Binding?, Binding?) = (nil, nil, nil, nil)
    private var others: [Binding] = []

    /// The bindings held inline.
    private static let inlineCapacity = 4

    /// The inline binding at `index` (below ``inlineCapacity``).
    private func inline(_ index: Int) -> Binding? {
        switch index {
        case 0: inline.0
        case 1: inline.1
        case 2: inline.2
        default: inline.3
        }
    }

    private mutating func setInline(_ index: Int, _ binding: Binding?) {
        switch index {
        case 0: inline.0 = binding
        case 1: inline.1 = binding
        case 2: inline.2 = binding
        default: inline.3 = binding
        }
    }

    /// The binding at `index` (below ``count``).
    private subscript(index: Int) -> Binding {
        get { index < Self.inlineCapacity ? inline(index)! : others[index - Self.inlineCapacity] }
        set {
            if index < Self.inlineCapacity { setInline(index, newValue) } else { others[index - Self.inlineCapacity] = newValue }
        }
    }

    /// The number of bindings held.
    var count: Int {
        inline.3 != nil ? Self.inlineCapacity + others.count : inline.2 != nil ? 3 : inline.1 != nil ? 2 : inline.0 != nil ? 1 : 0
    }

    /// Whether no binding is held.
    var isEmpty: Bool { inline.0 == nil }

    /// The binding of key path id `keyPathID`.
    ///
    /// - Complexity: O(*k*) in the bindings held.
    func binding(_ keyPathID: UInt32) -> Binding? {
        index(of: keyPathID).map { self[$0] }
    }

    private func index(of keyPathID: UInt32) -> Int? {
        (0..<count).first { self[$0].keyPathID == keyPathID }
    }

    /// Adds `binding`, whose key path id is not held.
    mutating func insert(_ binding: Binding) {
        let count = count
        if count < Self.inlineCapacity { setInline(count, binding) } else { others.append(binding) }
    }

    /// Removes the binding of `keyPathID` and returns it (the last one takes its place); nil
    /// when it is not held.
    ///
    /// - Complexity: O(*k*) in the bindings held.
    mutating func remove(_ keyPathID: UInt32) -> Binding? {
        guard let index = index(of: keyPathID) else { return nil }
        let removed = self[index], last = count - 1
        self[index] = self[last]
        if last < Self.inlineCapacity {
            setInline(last, nil)
        } else {
            others.removeLast()
            if others.isEmpty { others = [] }  // a target that goes keeps no array
        }
        return removed
    }

    /// Calls `body` on each binding, in no particular order.
    func forEach(_ body: (Binding) -> Void) {
        for index in 0..<count { body(self[index]) }
    }

    /// Whether a binding satisfies `predicate`.
    func contains(where predicate: (Binding) -> Bool) -> Bool {
        (0..<count).contains { predicate(self[$0]) }
    }

    /// The bindings, by key path id.
    var sorted: [Binding] {
        (0..<count).map { self[$0] }.sorted { $0.keyPathID < $1.keyPathID }
    }
}

// MARK: - A binding

/// One (target, key path): how to write it, the value it holds, and (in its ``TypedBinding``)
/// its default value — the property's value before its first binding, written back when no
/// rule matches. The default is held by the record itself, not in a box of its own: one
/// allocation a binding fewer.
@usableFromInline
package class Binding {
    final let target: BoundTarget
    /// The writer of the property, which every binding of it on targets of this class shares.
    final let writer: AnyPropertyWriter
    /// The version (see ``ValueSlab``) of the value last written to the property, 0 for the
    /// default: a write is skipped when the value to write is this one, and a binding whose
    /// rules changed is brought to its winner by comparing with it.
    @exclusivity(unchecked) final var writtenVersion: UInt64 = 0
    /// The ``writtenVersion`` of a binding that holds a value of a rule table its resolver left
    /// for the shared empty one: no value has it (a slab would hand it out after 2⁶³ values),
    /// so the next write writes.
    static let versionOfTableLeft: UInt64 = .max
    /// The key path's id in the resolver (see `KeyPathIDs`).
    final let keyPathID: UInt32
    /// The pair's slot in the C table, as of its last `csr_set`.
    @exclusivity(unchecked) final var slot: UInt32 = 0

    init(_ fields: BindingFields) {
        (target, writer, keyPathID) = (fields.target, fields.writer, fields.keyPathID)
    }

    /// The target's id (high 32 bits) and the key path's (low 32 bits): see `StateResolver.key`.
    /// Computed, not stored (a record of 48 bytes, not 56, before its default): the apply loop
    /// finds a binding by its slot and does not read it.
    final var key: UInt64 { StateResolver.key(target.id, keyPathID) }

    /// The default value, boxed (a new box: for queries, not for the apply loop).
    var defaultBox: AnyValueBox { internalInconsistency("Binding is abstract") }

    /// An inline value of the slab (see ``ValueSlab``), of the property's type, boxed (a new
    /// box: for queries).
    func box(inline bits: UInt64) -> AnyValueBox { internalInconsistency("Binding is abstract") }
}

/// A binding and its default value, of the property's type.
///
/// Made where the binding entry point is inlined, in the caller's code (see
/// ``KeyPathAccessors``): there the class's generic metadata is known without a lookup.
@usableFromInline
package final class TypedBinding<Value>: Binding {
    /// The default value; `var` only so that the direct access can take its address (never
    /// set).
    @usableFromInline @exclusivity(unchecked) final var defaultValue: Value

    @usableFromInline
    package init(_ defaultValue: Value, _ fields: BindingFields) {
        self.defaultValue = defaultValue
        super.init(fields)
    }

    override var defaultBox: AnyValueBox { ValueBox(defaultValue) }

    override func box(inline bits: UInt64) -> AnyValueBox { ValueBox<Value>(ValueSlab.value(ofBits: bits)) }
}

/// What a new ``Binding`` is made with besides its default value.
@usableFromInline
package struct BindingFields {
    let target: BoundTarget
    let keyPathID: UInt32
    let writer: AnyPropertyWriter
}
