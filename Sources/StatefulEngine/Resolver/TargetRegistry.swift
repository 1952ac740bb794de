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
    /// once there are more than ``searchLimit`` ids; until then ``byID`` is searched. An address
    /// is in one entry at most: the record of a dead object is purged when a new object at its
    /// address is looked up (see `StateResolver.existingTarget(_:)`), before that one is added.
    private var idsByObject: [UnsafeMutableRawPointer: UInt32]?
    /// The most ids searched for an address in ``byID`` (a control binds a few targets).
    private static var searchLimit: Int { 8 }
    /// The record of each id in use with its object's address, at index id − 1 (ids are dense:
    /// freed ones are reused); an empty entry for a freed id. The sweep walks it with
    /// ``sweepCursor``: with the direct access it reads only the addresses (and the objects'
    /// reference counts), not the records, which lie among the bindings' memory.
    private var byID: ContiguousArray<Entry> = []

    /// A record and its object's address; both nil for a freed id.
    private struct Entry {
        var record: BoundTarget?
        var address: UnsafeMutableRawPointer?
    }
    /// The next id never handed out.
    private(set) var nextID: UInt32 = 1
    /// Whether the targets' liveness is read from their reference counts (the direct access),
    /// as of the last registration: the property access is the process's, the same for every
    /// target. (Declared beside ``nextID``: it takes that field's padding.)
    private(set) var readsReferenceCounts = false
    /// Ids of targets that went, reused before new ones are taken.
    private var freeIDs: [UInt32] = []
    /// The index in ``byID`` that ``nextDeadTarget()`` checks next.
    private var sweepCursor = 0

    /// The number of bound targets.
    private(set) var count = 0

    /// The record made for the object at `object`'s address: `object`'s own, or that of a
    /// deallocated object whose address `object` took (check with `===` on its `object`).
    ///
    /// - Complexity: O(``searchLimit``) while there are few ids, else a hash lookup.
    func record(at object: AnyObject) -> BoundTarget? {
        let address = Unmanaged.passUnretained(object).toOpaque()
        guard let idsByObject else { return byID.first { $0.address == address }?.record }
        return idsByObject[address].flatMap { byID[Int($0) - 1].record }
    }

    /// Whether `bound` is registered (not removed yet).
    func contains(_ bound: BoundTarget) -> Bool { Int(bound.id) <= byID.count && byID[Int(bound.id) - 1].record === bound }

    /// Registers `object` under a freed id or the next new one.
    ///
    /// - Throws: ``ResolverError/tooManyTargets`` when every id is taken (nothing changed).
    mutating func add(_ object: AnyObject, access: PropertyAccess) throws(ResolverError) -> BoundTarget {
        let id: UInt32
        if let free = freeIDs.popLast() {
            id = free
        } else {
            guard nextID < UInt32.max else { throw .tooManyTargets }
            id = nextID
            nextID += 1
        }
        let bound = BoundTarget.make(object, id: id, access: access)
        readsReferenceCounts = bound.readsReferenceCounts
        let entry = Entry(record: bound, address: bound.address)
        if Int(id) > byID.count { byID.append(entry) } else { byID[Int(id) - 1] = entry }
        if idsByObject != nil {
            idsByObject![bound.address] = id
        } else if byID.count > Self.searchLimit {
            let ids = byID.indices.compactMap { index in byID[index].address.map { ($0, UInt32(index + 1)) } }
            idsByObject = Dictionary(ids) { _, later in later }
        }
        count += 1
        return bound
    }

    /// Unregisters `bound` and frees its id (the caller removed its rules).
    mutating func remove(_ bound: BoundTarget) {
        byID[Int(bound.id) - 1] = Entry()
        // A later object at the same address may have its own record by now.
        if idsByObject?[bound.address] == bound.id { idsByObject![bound.address] = nil }
        count -= 1
        freeIDs.append(bound.id)
    }

    /// Unregisters every target (the caller removed every rule); ids start again at 1.
    ///
    /// - Complexity: O(*n*) in the targets, whose records are released.
    mutating func removeAll() {
        (idsByObject, byID, count) = (nil, [], 0)
        (nextID, freeIDs, sweepCursor) = (1, [], 0)
    }

    /// One step of the sweep: the target under the cursor when it was deallocated (the caller
    /// purges it, which frees its id); nil, and the cursor moves on, when it lives or its id is
    /// free. The cursor wraps around, so every target is checked in turn.
    ///
    /// - Complexity: O(1).
    mutating func nextDeadTarget() -> BoundTarget? {
        if sweepCursor >= byID.count { sweepCursor = 0 }
        // The address alone, with the direct access: no retain of the record.
        guard sweepCursor < byID.count, let address = byID[sweepCursor].address else {
            sweepCursor += 1
            return nil
        }
        let lives =
            readsReferenceCounts
            ? BoundTarget.liveAddressByReferenceCounts(address) != nil : byID[sweepCursor].record?.liveAddress != nil
        if !lives { return byID[sweepCursor].record }
        sweepCursor += 1
        return nil
    }
}
