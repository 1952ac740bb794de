// A resolver's rules: the C table and the values of its rules, which resolvers that made the
// same binds share, and the process's registry that finds a table by the binds that made it.

internal import CStateResolver

/// What reads a table's last diff in place (a resolver's apply): told to copy what it has not
/// read yet before a call frees it.
protocol DiffReader: AnyObject {
    /// Goes on with a copy of the changes not read yet.
    func detachDiff()
}

extension Unmanaged<AnyObject> {
    /// Tells the ``DiffReader`` this is to detach (see ``RuleTable/diffReader``).
    func detachDiff() {
        guard let reader = takeUnretainedValue() as? any DiffReader else { internalInconsistency("a diff reader that cannot detach") }
        reader.detachDiff()
    }
}

/// A C rule table (Judy-backed, see `CStateResolver`) and the values of its rules
/// (``ValueSlab``): the rules of one resolver, or of every resolver that made the same binds.
///
/// A resolver that shares its rules (a control's: see ``StateResolver/init(state:sharingRules:)``)
/// starts on the shared empty table. At each bind it asks the process for the table that the
/// binds so far, this one last, make (its ``BindHistory``): when another resolver holds one,
/// it moves to it; otherwise it binds in its own table — a copy, first, when other resolvers
/// hold the one it is on — and registers the result. The same binds, from an empty table,
/// give each (target, key path) pair the same slot and each value the same handle and version,
/// so a resolver that moves keeps its bindings as they are.
///
/// Only some binds are shared: those of the same value, bit for bit (an inline value's bytes, or a
/// boxed value's: the same object, a string of the same stored bytes — equal values whose bits
/// differ are not shared, as a resolver writes the table's value, not its own; nor, as a rule, are
/// values whose bytes include some that hold no data, such as padding or an existential's unused
/// buffer, compared too), without a custom predicate, that replace no rule, up to
/// ``maximumSharedBinds``. Any other bind, and any other change to the rules (a removal, a purge, a
/// cache budget), makes the resolver's table its own until every value is removed, which moves it
/// back to the shared empty table. Caches are shared with the rules: a diff one control computed
/// serves every control on the table, and ``StateResolver/releaseCaches()`` releases them for all.
///
/// Sharing is for resolvers used from one isolation domain, as a control's are (the main
/// actor): a shared table's caches change as any of its resolvers resolves.
final class RuleTable {
    let table: OpaquePointer
    /// The values of the rules, accessed in place (see ``StateResolver``).
    @exclusivity(unchecked) var slab = ValueSlab()
    /// The binds that made the table while it can be shared; nil once it is a resolver's own.
    @exclusivity(unchecked) private(set) var history: BindHistory?
    /// What reads the table's last diff in place, if anything does (a resolver's apply): the
    /// diff another reader's next `csr_diff` (or a cache release) may free, so that one detaches
    /// it first (see ``StateResolver/detachDiffReader()``). Cleared when the apply ends or
    /// detaches, so it never outlives its reader. Unmanaged: compared without a retain, on the
    /// apply's path.
    @exclusivity(unchecked) var diffReader: Unmanaged<AnyObject>?

    /// The most binds a shared table is made of: a resolver that binds more has a table of its
    /// own, whose binds are not recorded (a control with a thousand bindings is one of a kind).
    static var maximumSharedBinds: Int { 32 }

    /// A new empty table, private (`history` nil) or shareable.
    ///
    /// - Throws: ``ResolverError/outOfMemory`` when there is no memory for the table.
    init(history: BindHistory?) throws(ResolverError) {
        var table: OpaquePointer?
        try ResolverError.check(csr_table_create(&table, nil, nil))
        guard let table else { throw .corrupted }
        self.table = table
        self.history = history
        // The table calls this mid-mutation: values are only parked in the slab, and released
        // (their deinits run) by the resolver's drain once the C call has returned. Unretained:
        // the object owns the table.
        let status = csr_set_release(
            table,
            { value, predicateContext, context in
                Unmanaged<RuleTable>.fromOpaque(context!).takeUnretainedValue().slab.releaseRule(
                    value, predicateContext: predicateContext)
            }, Unmanaged.passUnretained(self).toOpaque())
        StateResolver.expectSuccess(status)
    }

    /// A new empty table, for a resolver's creation or the shared empty table, which cannot
    /// throw: stops the program when there is no memory, as a failed allocation does.
    static func makeOrStop(history: BindHistory?) -> RuleTable {
        do { return try RuleTable(history: history) } catch { stop(for: error, in: "StateResolver cannot create its rule table") }
    }

    /// Destroys the table, taking its values back at once (not one by one through the slab's
    /// free list), and releases them.
    deinit { ValueSlab.release(removingAllValues { csr_table_destroy(table) }) }

    /// The values of every rule, taken back at once after `removeRules` made the table let go of
    /// all of them (its calls back then release their predicates only), for the caller to
    /// release once its resolver is consistent (their deinits may call back).
    ///
    /// - Complexity: O(1), plus `removeRules`.
    func removingAllValues(_ removeRules: () -> Void) -> [ValueSlab.Entry] {
        slab.isRemovingAll = true
        removeRules()
        slab.isRemovingAll = false
        return slab.removeAll()
    }

    /// The table's counts (see `csr_stats`).
    var stats: csr_stats {
        var stats = csr_stats()
        csr_get_stats(table, &stats)
        return stats
    }

    /// The table's cache budget, in bytes (see ``StateResolver/cacheBudget``).
    var cacheBudget: Int { Int(stats.cache_budget) }

    // MARK: Sharing

    /// The shared empty table every sharing resolver starts on (held for the process's life).
    nonisolated(unsafe) static let empty = makeOrStop(history: BindHistory())

    /// The shareable tables that resolvers are on, by the binds that made them: held while a
    /// resolver is on one (counted in ``holders``, see ``join(_:)`` and ``leave(_:)``) — not
    /// weakly, which would send every retain of a table down the runtime's slow path. Locked: a
    /// resolver may be released on any thread.
    private static let registry = Locked<[BindHistory: RuleTable]>([:])

    /// The number of sharing resolvers on the table, guarded by the registry's lock.
    @exclusivity(unchecked) private var holders = 0

    /// The table made by `history` that a resolver is on, if any.
    static func registered(_ history: BindHistory) -> RuleTable? { registry.withLock { $0[history] } }

    /// Counts a sharing resolver that moves onto `table`.
    static func join(_ table: RuleTable) { registry.withLock { _ in table.holders += 1 } }

    /// Counts out a sharing resolver that leaves `table` (moves off it, or is released): the
    /// registry forgets a table no resolver is on. The caller still holds the table.
    static func leave(_ table: RuleTable) {
        registry.withLock { registry in
            table.holders -= 1
            if table.holders == 0, let history = table.history, registry[history] === table { registry[history] = nil }
        }
    }

    /// Whether one resolver only is on the table (not the shared empty one): it may change it
    /// in place.
    var isHeldByOneResolver: Bool { self !== Self.empty && Self.registry.withLock { _ in holders == 1 } }

    /// Records that a bind was just made in this table, which one resolver only is on: the
    /// table is registered under its new history, or made private (`new` nil: a bind that
    /// cannot be shared, or past ``maximumSharedBinds``). Nothing for a private table.
    func record(_ new: BindHistory?) {
        guard let old = history else { return }
        Self.registry.withLock { registry in
            if registry[old] === self { registry[old] = nil }
            history = new
            // A table made by the same binds may be registered already: it is kept, and this one
            // stays unregistered but shareable.
            if let new, registry[new] == nil { registry[new] = self }
        }
    }

    /// Makes the table private: its resolver changes it other than by a shared bind.
    func makePrivate() { record(nil) }

    /// A table made by this one's binds, again, for a resolver that changes a table others
    /// hold: the same slots, handles and versions; private if `keepsHistory` is false (the
    /// caller changes it by other than a shared bind), else shareable and not registered yet.
    ///
    /// - Throws: ``ResolverError/outOfMemory`` when there is no memory for the copy, which is
    ///   then released: this table and its resolvers are unchanged.
    /// - Complexity: O(*b*) in the binds that made the table (at most ``maximumSharedBinds``).
    func copy(keepsHistory: Bool) throws(ResolverError) -> RuleTable {
        guard let history else { internalInconsistency("RuleTable: a private table copied") }
        let copy = try RuleTable(history: nil)
        for bind in history.binds {
            var descriptor = bind.descriptor
            // On failure, the copy's deinit releases the values inserted so far.
            let handle = try copy.slab.insert(bind.box, inline: bind.bits)
            try ResolverError.check(csr_set(copy.table, bind.target, bind.keyPath, &descriptor, handle, nil))
        }
        if keepsHistory { copy.history = history }  // not registered yet: no one else knows the copy
        return copy
    }
}

/// A bind a shared table records (40 bytes): the rule's (target, key path) pair, its descriptor
/// (without predicate), and its value — an inline value's bytes, or its box, compared by the
/// value's bits (``AnyValueBox/hasSameBits(as:)``).
struct SharedBind: Equatable {
    let target: UInt32
    let keyPath: UInt32
    let mode: UInt32
    let priority: Int32
    let mask: UInt64
    /// An inline value's bytes; 0 for a boxed one.
    let bits: UInt64
    /// The value in its box, nil for an inline value.
    let box: AnyValueBox?

    /// The bind of `box` (or inline `bits`) for `descriptor` to the pair, and the hash of its
    /// value's bits; nil when it cannot be shared: a custom descriptor.
    static func make(
        target: UInt32, keyPath: UInt32, descriptor: csr_descriptor, box: AnyValueBox?, bits: UInt64
    ) -> (bind: SharedBind, valueHash: Int)? {
        guard descriptor.predicate == nil else { return nil }
        let valueHash = box?.hashOfBits ?? bits.hashValue
        let bind = SharedBind(
            target: target, keyPath: keyPath, mode: descriptor.mode.rawValue, priority: descriptor.priority, mask: descriptor.mask,
            bits: bits, box: box)
        return (bind, valueHash)
    }

    /// The rule's C descriptor.
    var descriptor: csr_descriptor {
        csr_descriptor(
            mode: csr_mode(rawValue: mode), mask: mask, priority: priority, predicate: nil, predicate_context: nil, predicate_id: 0)
    }

    /// Whether the bind sets the rule of `descriptor` (not custom) for the pair: a later bind of
    /// it replaces this one's value.
    func setsRule(of target: UInt32, _ keyPath: UInt32, _ descriptor: csr_descriptor) -> Bool {
        self.target == target && self.keyPath == keyPath && mode == descriptor.mode.rawValue && priority == descriptor.priority
            && mask == descriptor.mask && descriptor.predicate == nil
    }

    static func == (lhs: Self, rhs: Self) -> Bool {
        guard lhs.setsRule(of: rhs.target, rhs.keyPath, rhs.descriptor), lhs.bits == rhs.bits else { return false }
        switch (lhs.box, rhs.box) {
        case (nil, nil): return true
        case (let a?, let b?): return a === b || a.hasSameBits(as: b)
        default: return false
        }
    }
}

/// The binds that made a shared table, in order, from an empty one, with their hash combined
/// as they are appended (a registry lookup hashes one word, and compares the binds only when
/// the hashes agree).
struct BindHistory: Hashable {
    private(set) var binds: [SharedBind] = []
    private var combinedHash = 0
    var count: Int { binds.count }

    /// Whether some bind set a rule of `target` — of its `keyPath` when given, and of
    /// `descriptor` for that pair when given too (the binds remove none).
    func hasRule(of target: UInt32, _ keyPath: UInt32? = nil, _ descriptor: csr_descriptor? = nil) -> Bool {
        binds.contains { bind in
            guard bind.target == target, keyPath == nil || bind.keyPath == keyPath else { return false }
            return descriptor.map { bind.setsRule(of: target, bind.keyPath, $0) } ?? true
        }
    }

    /// The history with `bind` (whose value hashes to `valueHash`) made last.
    func appending(_ bind: SharedBind, valueHash: Int) -> BindHistory {
        var history = self
        var hasher = Hasher()
        hasher.combine(combinedHash)
        hasher.combine(bind.target)
        hasher.combine(bind.keyPath)
        hasher.combine(bind.mode)
        hasher.combine(bind.priority)
        hasher.combine(bind.mask)
        hasher.combine(valueHash)
        history.combinedHash = hasher.finalize()
        history.binds.append(bind)
        return history
    }

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.combinedHash == rhs.combinedHash && lhs.binds == rhs.binds }

    func hash(into hasher: inout Hasher) { hasher.combine(combinedHash) }
}
