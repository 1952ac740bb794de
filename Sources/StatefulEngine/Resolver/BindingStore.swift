// A resolver's part that holds its bindings: by key, by C slot for the apply loop, and the ones
// removed during an apply, kept alive until it ends.

internal import CStateResolver

/// The bindings of a resolver: owned by their key (target id and key path id), indexed by the
/// C table's slot of their pair (see `csr_slot`) so that a change of a diff finds its binding
/// without a hash lookup, and retired — kept alive — when removed while an apply may be
/// writing them.
///
/// The slot index holds unretained references: the store owns every binding it indexes, and
/// keeps those removed during an apply in ``retired``, so the apply loop borrows each binding
/// without a retain. Slots are reused by the table: an index entry is checked against the
/// change's key.
struct BindingStore {
    private(set) var byKey = CompactDictionary<UInt64, Binding>()
    private var bySlot: ContiguousArray<Unmanaged<Binding>?> = []
    /// Bindings removed while an apply ran, until the outermost apply ends.
    private(set) var retired: [Binding] = []

    /// The number of bindings.
    var count: Int { byKey.count }

    /// Whether no binding is held.
    var isEmpty: Bool { byKey.isEmpty }

    /// The keys of every binding, ascending: first-bind order (target id, then key path id).
    var sortedKeys: [UInt64] { byKey.keys.sorted() }

    /// The binding of `key`.
    subscript(key: UInt64) -> Binding? { byKey[key] }

    /// Adds `binding` under its key (not indexed by slot until ``index(_:at:)``).
    mutating func insert(_ binding: Binding) { byKey[binding.key] = binding }

    /// Records `binding`'s C slot and indexes it there, growing the index as needed.
    ///
    /// - Complexity: Amortised O(1); the index grows to the highest slot.
    mutating func index(_ binding: Binding, at slot: UInt32) {
        if isIndexed(binding) { bySlot[Int(binding.slot)] = nil }  // the table gave it another slot
        binding.slot = slot
        if bySlot.count <= Int(slot) { bySlot.append(contentsOf: repeatElement(nil, count: Int(slot) + 1 - bySlot.count)) }
        bySlot[Int(slot)] = Unmanaged.passUnretained(binding)
    }

    /// The binding indexed at `slot`, unretained, if it is the binding of `key` (the table
    /// reuses slots; nil: look the key up with ``subscript(_:)``).
    ///
    /// Separate from the key lookup so that the apply loop, which almost always finds its
    /// binding here, reads only the slot index: a call that borrows the store loads every field
    /// it uses.
    @inline(__always)
    func binding(inSlot slot: UInt32, ifKey key: UInt64) -> Unmanaged<Binding>? {
        guard Int(slot) < bySlot.count, let binding = bySlot[Int(slot)],
            binding._withUnsafeGuaranteedRef({ $0.key == key })
        else { return nil }
        return binding
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
        guard let binding = byKey.removeValue(forKey: key) else { return nil }
        if isIndexed(binding) { bySlot[Int(binding.slot)] = nil }
        if retiring { retired.append(binding) }
        return binding
    }

    /// Removes every binding, and returns them for the caller to release once the store is
    /// consistent (their writers' and values' deinits may run); while an apply runs
    /// (`retiring`) they are kept in ``retired`` as well.
    ///
    /// They are returned in slot order, about the order they were bound: freed in that order,
    /// a million bindings take a third of the time they take in the dictionary's order.
    ///
    /// - Complexity: O(*n*) in the bindings and slots.
    mutating func removeAll(retiring: Bool) -> [Binding] {
        var removed = bySlot.compactMap { $0?.takeUnretainedValue() }
        if removed.count < byKey.count {  // a binding is indexed once its rule is in the table
            removed += byKey.values { !isIndexed($0) }
        }
        if retiring { retired.append(contentsOf: removed) }
        (byKey, bySlot) = (CompactDictionary(), [])
        return removed
    }

    /// The bindings whose property holds a value of a rule (not its default), in first-bind
    /// order (ascending keys).
    ///
    /// - Complexity: O(*n* + *w* log *w*) in the bindings and those that hold a rule's value.
    var holdingRuleValues: [Binding] {
        byKey.values { $0.writtenVersion != 0 }.sorted { $0.key < $1.key }
    }

    /// The retired bindings, no longer kept: the caller releases them (their writers' and
    /// values' deinits may run).
    mutating func takeRetired() -> [Binding] {
        let bindings = retired
        retired = []
        return bindings
    }
}
