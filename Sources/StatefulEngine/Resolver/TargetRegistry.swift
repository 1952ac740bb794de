// A resolver's part that knows its bound targets: their ids (reused once a target goes), the
// record of each object, and the sweep that finds the deallocated ones.

/// The bound targets of a resolver, by object and by id, and the round-robin sweep over them.
///
/// Ids start at 1 and are handed out in order; the id of a target that went is reused, most
/// recently freed first, before a new one is taken, so a long-lived resolver does not run out
/// of ids with churn (its C table holds no rule of a freed id). The registry holds no rule and
/// purges nothing itself: the resolver purges a dead target's rules, then ``remove(_:)``s it.
struct TargetRegistry {
    /// The id of the record made for the object at an address (which a later object may have).
    private var idsByObject = CompactDictionary<UnsafeMutableRawPointer, UInt32>()
    /// The record of each id in use, at index id − 1 (ids are dense: freed ones are reused).
    private var recordsByID: ContiguousArray<BoundTarget?> = []
    /// The next id never handed out.
    private(set) var nextID: UInt32 = 1
    /// Ids of targets that went, reused before new ones are taken.
    private var freeIDs: [UInt32] = []
    /// Every record with its object's address, in no particular order (a removal moves the
    /// last one to its place), and the one ``nextDeadTarget()`` checks next. With the direct
    /// access the sweep reads only the addresses (and the objects' reference counts), not the
    /// records, which lie among the bindings' memory.
    private var sweepList: ContiguousArray<(record: BoundTarget, address: UnsafeMutableRawPointer)> = []
    private var sweepCursor = 0

    /// The number of bound targets.
    var count: Int { sweepList.count }

    /// The record made for the object at `object`'s address: `object`'s own, or that of a
    /// deallocated object whose address `object` took (check with `===` on its `object`).
    ///
    /// - Complexity: One lookup (see ``CompactDictionary``).
    func record(at object: AnyObject) -> BoundTarget? {
        guard let id = idsByObject[Unmanaged.passUnretained(object).toOpaque()] else { return nil }
        return recordsByID[Int(id) - 1]
    }

    /// Whether `bound` is registered (not removed yet).
    func contains(_ bound: BoundTarget) -> Bool { Int(bound.id) <= recordsByID.count && recordsByID[Int(bound.id) - 1] === bound }

    /// Whether the targets' liveness is read from their reference counts (the direct access),
    /// as of the last registration: the property access is the process's, the same for every
    /// target.
    private(set) var readsReferenceCounts = false

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
        idsByObject[bound.address] = bound.id
        if Int(id) > recordsByID.count { recordsByID.append(bound) } else { recordsByID[Int(id) - 1] = bound }
        bound.sweepIndex = UInt32(sweepList.count)
        sweepList.append((bound, bound.address))
        return bound
    }

    /// Unregisters `bound` and frees its id (the caller removed its rules). The last record of
    /// the sweep list takes its place.
    mutating func remove(_ bound: BoundTarget) {
        recordsByID[Int(bound.id) - 1] = nil
        // A later object at the same address may have its own record by now.
        if idsByObject[bound.address] == bound.id { idsByObject[bound.address] = nil }
        let last = sweepList.removeLast()
        if last.record !== bound {
            sweepList[Int(bound.sweepIndex)] = last
            last.record.sweepIndex = bound.sweepIndex
        }
        freeIDs.append(bound.id)
    }

    /// Unregisters every target (the caller removed every rule); ids start again at 1.
    ///
    /// - Complexity: O(*n*) in the targets, whose records are released.
    mutating func removeAll() {
        (idsByObject, recordsByID, sweepList) = (CompactDictionary(), [], [])
        (nextID, freeIDs, sweepCursor) = (1, [], 0)
    }

    /// One step of the sweep: the target under the cursor when it was deallocated (the caller
    /// purges it, which moves another record to its place, checked next); nil, and the cursor
    /// moves on, when it lives. The cursor wraps around, so every target is checked in turn.
    ///
    /// - Complexity: O(1).
    mutating func nextDeadTarget() -> BoundTarget? {
        if sweepCursor >= sweepList.count { sweepCursor = 0 }
        let lives =
            readsReferenceCounts
            ? BoundTarget.liveAddressByReferenceCounts(sweepList[sweepCursor].address) != nil
            : sweepList[sweepCursor].record.liveAddress != nil
        if !lives { return sweepList[sweepCursor].record }
        sweepCursor += 1
        return nil
    }
}
