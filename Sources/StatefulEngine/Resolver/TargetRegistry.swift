// A resolver's part that knows its bound targets: their ids (reused once a target goes), the
// record of each object, and the sweep that finds the deallocated ones.

/// The bound targets of a resolver, by object and by id, and the round-robin sweep over them.
///
/// Ids start at 1 and are handed out in order; the id of a target that went is reused, most
/// recently freed first, before a new one is taken, so a long-lived resolver does not run out
/// of ids with churn (its C table holds no rule of a freed id). The registry holds no rule and
/// purges nothing itself: the resolver purges a dead target's rules, then ``remove(_:)``s it.
struct TargetRegistry {
    /// The id of the record made for the object at an address (which a later object may have),
    /// once there are more than ``searchLimit`` ids; until then the records are searched. An
    /// address is in one entry at most: a record keeps its object's memory, and so its address
    /// (``BoundTarget/keepsMemory``), or, if it does not, is purged when a new object at its
    /// ended object's address is looked up (see `StateResolver.existingTarget(_:)`), before
    /// that one is added.
    private var idsByObject: [UnsafeMutableRawPointer: UInt32]?
    /// The most ids searched for an address (a control binds a few targets).
    private static var searchLimit: Int { 8 }
    /// The record of id 1, nil while that id is free. Held apart from the others, so that a
    /// resolver whose bindings have one target (a control binding its own properties) has no
    /// array: its address is read from the record.
    private var first: BoundTarget?
    /// The record of each id from 2 with its object's address, at index id − 2 (ids are dense:
    /// freed ones are reused); an empty entry for a freed id. The sweep reads only the
    /// addresses here with the direct access (and the objects' reference counts), not the
    /// records, which lie among the bindings' memory.
    private var others: ContiguousArray<Entry> = []

    /// A record and its object's address; both nil for a freed id.
    private struct Entry {
        var record: BoundTarget?
        var address: UnsafeMutableRawPointer?
    }
    /// Ids of targets that went, reused before new ones are taken.
    private var freeIDs: [UInt32] = []
    /// The next id never handed out.
    private(set) var nextID: UInt32 = 1
    /// The index (id − 1) that ``nextDeadTarget()`` checks next. (Beside ``nextID``: the two
    /// and the flag below take one word and a byte.)
    private var sweepCursor: UInt32 = 0
    /// Whether the targets' liveness is read from their reference counts (the direct access),
    /// as of the last registration: the property access is the process's, the same for every
    /// target.
    private(set) var readsReferenceCounts = false

    /// The number of bound targets.
    var count: Int { idCount - freeIDs.count }

    /// The number of ids handed out, in use or free: ids run from 1 to this.
    private var idCount: Int { Int(nextID) - 1 }

    /// The record of the id at `index` (id − 1), nil when that id is free.
    private func record(atIndex index: Int) -> BoundTarget? { index == 0 ? first : others[index - 1].record }

    /// The address of the object of the id at `index` (id − 1), nil when that id is free.
    @inline(__always)
    private func address(atIndex index: Int) -> UnsafeMutableRawPointer? {
        index == 0 ? first?.address : others[index - 1].address
    }

    /// Puts `record` (nil: none) at `index` (id − 1), at most one past the ids handed out.
    private mutating func set(_ record: BoundTarget?, atIndex index: Int) {
        if index == 0 {
            first = record
        } else if index - 1 == others.count {
            others.append(Entry(record: record, address: record?.address))
        } else {
            others[index - 1] = Entry(record: record, address: record?.address)
        }
    }

    /// The record made for the object at `object`'s address: `object`'s own, or that of a
    /// deallocated object whose address `object` took (check with `===` on its `object`).
    ///
    /// - Complexity: O(``searchLimit``) while there are few ids, else a hash lookup.
    func record(at object: AnyObject) -> BoundTarget? {
        let address = Unmanaged.passUnretained(object).toOpaque()
        guard let idsByObject else {
            return first?.address == address ? first : others.first { $0.address == address }?.record
        }
        return idsByObject[address].flatMap { record(atIndex: Int($0) - 1) }
    }

    /// Whether `bound` is registered (not removed yet).
    func contains(_ bound: BoundTarget) -> Bool { Int(bound.id) <= idCount && record(atIndex: Int(bound.id) - 1) === bound }

    /// Registers `object` under a freed id or the next new one.
    ///
    /// - Throws: ``ResolverError/tooManyTargets`` when every id is taken (nothing changed).
    mutating func add(_ object: AnyObject, access: PropertyAccess, onMainActor: Bool) throws(ResolverError) -> BoundTarget {
        let id: UInt32
        if let free = freeIDs.popLast() {
            id = free
        } else {
            guard nextID < UInt32.max else { throw .tooManyTargets }
            id = nextID
            nextID += 1
        }
        let bound = BoundTarget.make(object, id: id, access: access, onMainActor: onMainActor)
        readsReferenceCounts = bound.readsReferenceCounts
        set(bound, atIndex: Int(id) - 1)
        if idsByObject != nil {
            idsByObject![bound.address] = id
        } else if idCount > Self.searchLimit {
            let ids = (0..<idCount).compactMap { index in address(atIndex: index).map { ($0, UInt32(index + 1)) } }
            idsByObject = Dictionary(ids) { _, later in later }
        }
        return bound
    }

    /// Unregisters `bound` and frees its id (the caller removed its rules).
    mutating func remove(_ bound: BoundTarget) {
        set(nil, atIndex: Int(bound.id) - 1)
        // A later object at the same address may have its own record by now.
        if idsByObject?[bound.address] == bound.id { idsByObject![bound.address] = nil }
        freeIDs.append(bound.id)
    }

    /// Unregisters every target (the caller removed every rule); ids start again at 1.
    ///
    /// - Complexity: O(*n*) in the targets, whose records are released.
    mutating func removeAll() {
        (idsByObject, first, others) = (nil, nil, [])
        (nextID, freeIDs, sweepCursor) = (1, [], 0)
    }

    /// One step of the sweep: the target under the cursor when it was deallocated (the caller
    /// purges it, which frees its id); nil, and the cursor moves on, when it lives or its id is
    /// free. The cursor wraps around, so every target is checked in turn.
    ///
    /// - Complexity: O(1).
    @inline(__always)
    mutating func nextDeadTarget() -> BoundTarget? {
        skipsLiveTarget() ? nil : deadTargetUnderCursor()
    }

    /// The first half of ``nextDeadTarget()``, with no call of its own (so a caller that finds
    /// a live target needs no frame): true, and the cursor moved on, when the id under it is
    /// free or its target's reference counts say it lives; false when the target must be
    /// checked further (dead, or the portable access).
    @inline(__always)
    mutating func skipsLiveTarget() -> Bool {
        if Int(sweepCursor) >= idCount { sweepCursor = 0 }
        let index = Int(sweepCursor)
        // The address alone, with the direct access: no retain of the record.
        if index < idCount, let address = address(atIndex: index), !readsReferenceCounts || isDeallocating(address) { return false }
        sweepCursor += 1
        return true
    }

    /// The second half of ``nextDeadTarget()``: the record under the cursor if its object is
    /// dead (the reference counts said so, or its portable check does), else nil with the
    /// cursor moved on.
    mutating func deadTargetUnderCursor() -> BoundTarget? {
        let index = Int(sweepCursor)
        if let record = record(atIndex: index), readsReferenceCounts || record.liveAddress == nil { return record }
        sweepCursor += 1
        return nil
    }
}

// MARK: Invariants

extension TargetRegistry {
    /// The first broken promise of the registry, nil when all hold (see
    /// ``StateResolver/checkInvariants()``): each id's record carries it; the free ids are
    /// distinct and exactly the ids without a record; an address is in one entry at most, and
    /// the index by address, once made, finds each record's id.
    ///
    /// - Complexity: O(*n*) in the ids.
    func invariantViolation() -> String? {
        var free = Set<UInt32>()
        for id in freeIDs {
            guard id >= 1, Int(id) <= idCount, record(atIndex: Int(id) - 1) == nil, free.insert(id).inserted else {
                return "free id \(id) out of range, in use or listed twice"
            }
        }
        var addresses = Set<UnsafeMutableRawPointer>()
        for index in 0..<idCount {
            guard let record = record(atIndex: index) else {
                guard free.contains(UInt32(index + 1)) else { return "id \(index + 1) neither used nor free" }
                continue
            }
            guard record.id == UInt32(index + 1), address(atIndex: index) == record.address else {
                return "id \(index + 1): the record of another id or address"
            }
            guard addresses.insert(record.address).inserted else { return "an address in two entries" }
            if let idsByObject, idsByObject[record.address] != record.id { return "the index by address misses id \(record.id)" }
        }
        return nil
    }

    /// Whether `id` is registered: handed out and not freed.
    func isRegistered(_ id: UInt32) -> Bool { id >= 1 && Int(id) <= idCount && record(atIndex: Int(id) - 1) != nil }
}
