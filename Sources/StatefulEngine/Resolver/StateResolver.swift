// The state resolver: its parts, the public API that binds values, the queries, and the internals
// apply, explain and lint share (applying and writing: +Apply; removing: +Removal; targets:
// +Targets; C descriptors: +Descriptors; lists: +Lists; closures of the state: +Computed).

internal import CStateResolver

/// Resolves and applies values bound to (target, key path, state descriptor).
///
/// A resolver's rules live in one C rule table (Judy-backed, see `CStateResolver`), its own — a
/// control's resolver shares it with the controls that made the same binds (see `RuleTable`).
/// Values are bound with
/// ``setValue(_:for:of:when:)``; ``apply(_:)`` moves the resolver to a new state and writes
/// exactly the bound values that differ between the old and the new state, in first-bind
/// order. A value bound while its descriptor wins for the applied state is written at once;
/// one that does not win is only stored.
///
/// The value a key path had when it was first bound is its *default*: it is written back when
/// no rule matches, and when the binding is removed.
///
/// A binding is one property of one target, whatever the key path's root type:
/// `\Button.titleColor` and `\VisitableButton.titleColor` on a `VisitableButton` share their
/// rules, so priorities hold across them (see `PropertyPath` for how the property is found, and
/// its one limit: an override reached through a later component of a path).
///
/// Targets are not kept alive (`BoundTarget` says how each property access knows they live). A target that is
/// deallocated is skipped and its rules purged; a new object that happens to get the same
/// address is a new target and never receives them.
///
/// A property stored in place — a `var` of a final class, or a `final var` — is written at its
/// address; a computed, observed (`didSet`) or overridable property of the target is written by
/// calling its setter as the key path would, without the standard library's key-path
/// projection. Only a path through another object or a subscript pays that projection (a walk
/// of the key path and a heap allocation per write: BENCHMARKS.md, key paths from a table):
/// bind such a property on the object that holds it.
///
/// A resolver is not thread-safe and not actor-bound: use each resolver from one isolation
/// domain at a time (a thread, an actor, or the main actor for a `Control` of the controls
/// module); resolvers on different threads are independent. Setters, value deinits and
/// handlers may call back into the resolver (see ``apply(_:)``); a custom predicate may not
/// (the program stops with a message).
public final class StateResolver {
    /// The rules: the C table and the values of its rules, this resolver's own or shared with
    /// resolvers that made the same binds (see ``RuleTable``).
    @exclusivity(unchecked) var rules: RuleTable
    /// The rules' C table.
    var table: OpaquePointer { rules.table }
    // The parts, one concern each (a value of its own type, a file of its own), accessed in
    // place: unchecked, as a resolver is used from one isolation domain at a time and no access
    // to a part lasts across user code (setters, deinits and predicates run between accesses)
    // or a call into the table (whose release callback changes the slab).
    var slab: ValueSlab {
        _read { yield rules.slab }
        _modify { yield &rules.slab }
    }
    @exclusivity(unchecked) var targets = TargetRegistry()
    @exclusivity(unchecked) var keyPaths = KeyPathIDs()
    @exclusivity(unchecked) var predicateNames = PredicateNames()
    @exclusivity(unchecked) var bindings = BindingStore()
    /// The bindings whose values a closure computes, by binding key (see ``ComputedValues``).
    @exclusivity(unchecked) var computed = ComputedBindings()
    @exclusivity(unchecked) @usableFromInline var applying: ApplyState
    /// Whether the resolver shares its rules with those that made the same binds (see
    /// ``RuleTable``): it starts on the shared empty table, and returns to it when every value
    /// is removed. (Last: in the room malloc's rounding leaves.)
    let sharesRules: Bool

    /// The number of custom descriptor names some rule uses.
    var customNameCount: Int { predicateNames.count }

    /// Whether an ``apply(_:)`` is running. A getter, not the stored property: another module
    /// accessing the property directly would add a runtime exclusivity check of its own.
    package var isApplyingChanges: Bool { applying.isApplying }

    /// The most rounds one ``apply(_:)`` runs when setters keep changing the state.
    package static let maximumRounds = 64

    /// The state whose values are applied.
    public var appliedState: ControlState { applying.applied }

    /// Moves the resolver to `state`, writing exactly the bound values that differ between
    /// ``appliedState`` and `state`, in a deterministic order: targets in the order of their
    /// ids — the order they were first bound, except that a target bound after another went
    /// takes that one's id and place — and for each target its key paths in the order this
    /// resolver first saw them. Applying the applied state writes nothing.
    ///
    /// Every eighth apply also checks one bound target for deallocation (see
    /// `sweepDeadTargets(_:)`).
    ///
    /// Setters may call back into the resolver. A value bound or removed by a setter is applied
    /// by that call (a binding removed before its turn gets its default). An `apply` from a
    /// setter does not nest: the running apply continues to the newest requested state once
    /// the current round of writes is done, so the last request wins and writes never
    /// interleave.
    ///
    /// - Complexity: O(*c*) in the bindings whose value changes, when the pair of states was
    ///   diffed before (one cached lookup); O(*n*) in the bound pairs for a pair of states seen
    ///   for the first time.
    /// - Returns: The number of values written.
    /// - Throws: ``ResolverError/cycle`` when setters keep changing the requested state for
    ///   more than 64 rounds; the resolver stays at the last state it applied.
    @discardableResult
    public func apply(_ state: ControlState) throws(ResolverError) -> Int { try apply(state, calledBy: nil) }

    /// Moves the resolver to `state` when that writes nothing — no apply runs, and no rule tells
    /// `state` from ``appliedState`` — and returns true; returns false, having done nothing,
    /// when `state` needs an ``apply(_:)``. A control asks first: a change of bits no rule
    /// reads then costs a comparison. The move counts as an apply: every eighth sweeps for a
    /// dead target, as an apply does, and releases what it purged before returning.
    ///
    /// - Complexity: O(1), plus a purge.
    @inlinable @inline(__always)
    package func moveWithoutWrites(to state: ControlState) -> Bool {
        guard applying.move(to: state) else { return false }
        if applying.sweepsDeadTargets { sweepAfterMoving(self) }
        return true
    }

    /// Writes the binding's value for the applied state, if it does not hold it already.
    ///
    /// Out of line: the apply loop calls it only when its change list went stale, and inlined
    /// there, the address of its C call's out-parameter keeps a register for the whole loop.
    @discardableResult @inline(never)
    func sync(_ binding: Binding) -> Bool {
        write(binding, resolve(binding.key, in: appliedState), direct: binding.target.readsReferenceCounts)
    }

    /// Creates an empty resolver whose values count as applied for `state`.
    public init(state: ControlState = .normal) {
        rules = .makeOrStop(history: nil)
        applying = ApplyState(applied: state)
        sharesRules = false
    }

    /// Creates an empty resolver whose values count as applied for `state` and that shares its
    /// rules with the resolvers that made the same binds (see ``RuleTable``): for resolvers
    /// used on the main actor only, as a control's.
    package init(state: ControlState = .normal, sharingRules: Bool) {
        rules = sharingRules ? .empty : .makeOrStop(history: nil)
        applying = ApplyState(applied: state)
        sharesRules = sharingRules
        if sharingRules { RuleTable.join(rules) }
    }

    /// Counts the resolver out of its shared rules (they go with the last resolver on them).
    deinit { if sharesRules { RuleTable.leave(rules) } }

    // MARK: Binding values

    /// Binds `value` to `keyPath` of `target` for the states `descriptor` matches.
    ///
    /// A value with the same descriptor identity replaces the earlier one and counts as set
    /// most recently. The first value bound to a (target, key path) captures its current value
    /// as the default. When the new value wins for ``appliedState`` it is written at once.
    ///
    /// The key path is taken as an autoclosure so that, where the call is compiled, a key path
    /// literal becomes an assignment to the property, which the portable property access writes
    /// with (see "Property access"). The expression is evaluated once, here.
    ///
    /// - Throws: ``ResolverError/outOfMemory`` (nothing changed) or another ``ResolverError``.
    /// - Complexity: O(log *n*) in the bound (target, key path) pairs for the Judy lookups,
    ///   plus O(*r*) in the rules of this pair; the cached resolutions of this pair are
    ///   invalidated, not recomputed.
    @inlinable
    public func setValue<Target: AnyObject, Value>(
        _ value: Value, for keyPath: @autoclosure () -> ReferenceWritableKeyPath<Target, Value>, of target: Target,
        when descriptor: StateDescriptor
    ) throws(ResolverError) {
        try setValue(RuleValue(value), through: KeyPathAccessors(keyPath), of: target, when: descriptor)
    }

    /// ``setValue(_:for:of:when:)``, with the value made for the slab (see ``RuleValue``) and
    /// the key path's accessors made by the caller's code (see ``KeyPathAccessors``).
    @usableFromInline
    package func setValue<Target: AnyObject, Value>(
        _ value: RuleValue<Value>, through accessors: KeyPathAccessors<Target, Value>, of target: Target,
        when descriptor: StateDescriptor
    ) throws(ResolverError) {
        checkNotEvaluating("setValue(_:for:of:when:)")
        let keyPath = accessors.keyPath
        let bound = try self.target(for: target)
        let keyPathID = keyPaths.id(keyPath, of: target)
        let key = Self.key(bound.id, keyPathID)
        let existing = bindings[key]
        let binding: Binding
        if let existing {
            binding = existing
        } else {
            let writer = keyPaths.writer(keyPath, of: target, box: value.boxed, accessors: accessors)
            binding = accessors.makeBinding(target, BindingFields(target: bound, keyPathID: keyPathID, writer: writer))
            bindings.insert(binding)
        }
        do {
            // Indexed before any user code runs: an apply from a deinit must find the binding
            // at the slot its diff names (see `BindingStore.binding(inSlot:)`).
            bindings.index(binding, at: try addRule(value.box, inline: value.bits, when: descriptor, to: bound, keyPathID))
        } catch {
            if existing == nil { forget(key) }
            throw error
        }
        applying.sensitiveBits |= descriptor.sensitiveBits
        if slab.hasReleased {
            drainReleased()
            // A deinit that ran just now may have removed the binding (or removed its rules and
            // set them again, which indexed it at its new slot).
            guard bindings[key] === binding else { return }
        }
        // A rule that does not match the applied state wins nothing there: the property holds
        // its value already.
        if descriptor.predicate != nil || descriptor.matches(appliedState) { sync(binding) }
    }

    /// Adds the rule binding the value (`box`, or inline `bits` when nil: see ``ValueSlab``) for
    /// `descriptor` to the table and returns the pair's slot; when the table refuses it, takes
    /// back what was made for it (released by the drain) and throws.
    private func addRule(
        _ box: AnyValueBox?, inline bits: UInt64, when descriptor: StateDescriptor, to bound: BoundTarget,
        _ keyPathID: UInt32
    ) throws(ResolverError) -> UInt32 {
        var slot: UInt32 = 0
        // Shared rules: moved to a table that holds the rule, or made ready to take it.
        let history = rules.history
        var next: BindHistory?
        if let history {
            let prepared = try prepareToAdd(descriptor, box, inline: bits, to: bound.id, keyPathID, after: history)
            if prepared.found {
                Self.expectSuccess(csr_slot(table, bound.id, keyPathID, &slot))
                return slot
            }
            next = prepared.next
        }
        let handle = try slab.insert(box, inline: bits)
        var cDescriptor = self.cDescriptor(forSetting: descriptor)
        detachDiffReader()
        let status = csr_set(table, bound.id, keyPathID, &cDescriptor, handle, &slot)
        guard status != CSR_OK else {
            // Tested here, on the local: `record` reading the table's history again costs every
            // bind a second load of it.
            if history != nil { rules.record(next) }
            return slot
        }
        if history != nil { rules.makePrivate() }  // the table's handles no longer follow its binds
        slab.releaseRule(handle, predicateContext: cDescriptor.predicate_context)
        drainReleased()
        try ResolverError.check(status)
        throw .corrupted  // a status csr_set does not return
    }

    // MARK: Queries

    /// The value `keyPath` of `target` gets in `state`: the winning bound value, or the default
    /// when none matches. Nil when nothing is bound to that key path of that target.
    ///
    /// - Complexity: A state resolved before: two Judy lookups (O(log *n*), in practice a few
    ///   cache lines). A state seen for the first time: O(*r*) in the pair's rules, cached.
    public func value<Target: AnyObject, Value>(
        for keyPath: ReferenceWritableKeyPath<Target, Value>, of target: Target, in state: ControlState
    ) -> Value? {
        checkNotEvaluating("value(for:of:in:)")
        guard let binding = binding(keyPath, of: target) else { return nil }
        guard let handle = resolve(binding.key, in: state) else { return (binding as? TypedBinding<Value>)?.defaultValue }
        return (slab.box(handle, of: binding) as? ValueBox<Value>)?.value
    }

    /// The number of rules held.
    ///
    /// - Complexity: O(1).
    public var ruleCount: Int { stats.rules }

    /// The memory the resolver may spend on cached resolutions and diffs, in bytes: 16 MiB
    /// for a new resolver (about 200 fully resolved states of 10,000 bindings, or 15,000
    /// states of one binding). The least recently used states and diffs are evicted to stay
    /// within it, so a resolver that meets ever new states (a state made of many independent
    /// factors) stays within it; a state evicted and met again is resolved again. Results
    /// never depend on the budget, only the speed of state changes; 0 turns caching off.
    ///
    /// - Complexity: Setting it evicts at once: O(cached states and diffs) at most.
    public var cacheBudget: Int {
        get { rules.cacheBudget }
        set {
            guard newValue >= 0 else { misuse("StateResolver.cacheBudget set to \(newValue); a budget is a number of bytes, 0 or more") }
            makeRulesPrivate()  // the budget of its own caches; the diff an apply reads may be evicted
            Self.expectSuccess(csr_set_cache_budget(table, newValue))
            drainReleased()
        }
    }

    /// Frees the memory of the cached resolutions and diffs, all of it: for a resolver that
    /// will stay idle a while, such as the controls of a page a server holds while its user is
    /// away. Results never depend on it; the next state change computes its diff again from the
    /// rules (and caches it), as the first change between two states does.
    ///
    /// May be called while the resolver applies a state (from a setter of a bound property):
    /// the apply goes on with the changes it read. Stops the program, with a message, when
    /// called from a custom predicate.
    ///
    /// - Complexity: O(cached states and diffs).
    public func releaseCaches() {
        checkNotEvaluating("releaseCaches()")
        detachDiffReader()  // the diff an apply is reading is freed
        csr_release_cache(table)
    }

    /// The bytes the caches hold now (at most ``cacheBudget``, plus the diff being applied).
    var cacheBytes: Int { Int(stats.cache_bytes) }

    private var stats: csr_stats { rules.stats }

    // MARK: Internals shared with apply, explain and lint

    static func key(_ target: UInt32, _ keyPath: UInt32) -> UInt64 { UInt64(target) << 32 | UInt64(keyPath) }

    func resolve(_ key: UInt64, in state: ControlState) -> csr_value? {
        var value: csr_value = 0
        let status = evaluating {
            csr_resolve(table, UInt32(key >> 32), UInt32(truncatingIfNeeded: key), tableState(state), &value)
        }
        Self.expectSuccess(status)
        return status == CSR_OK ? value : nil
    }

    /// ``beginChanges(from:to:)`` when `csr_diff` failed with `status`.
    @inline(never)
    func beginChangesPairByPair(from: ControlState, to: ControlState, _ status: csr_status) throws(ResolverError) {
        rules.diffReader = nil
        guard status == CSR_ERR_NOMEM else { throw .corrupted }
        applying.pending.begin(
            stale: bindings.sortedKeys.compactMap { key in
                let old = resolve(key, in: from), new = resolve(key, in: to)
                guard old != new else { return nil }
                return csr_change(
                    target: UInt32(key >> 32), key_path: UInt32(truncatingIfNeeded: key),
                    old_value: old ?? CSR_NO_VALUE, new_value: new ?? CSR_NO_VALUE, slot: UInt32.max)
            })
    }

    /// Traps on a status that only a corrupt table can produce.
    static func expectSuccess(_ status: csr_status) {
        do { try ResolverError.check(status) } catch {
            internalInconsistency("StateResolver: \(error) (status \(status.rawValue))")
        }
    }

    func binding<Target: AnyObject, Value>(_ keyPath: ReferenceWritableKeyPath<Target, Value>, of target: Target) -> Binding? {
        guard let bound = existingTarget(target) else { return nil }
        return bindings[Self.key(bound.id, keyPaths.id(keyPath, of: target))]
    }

    /// Releases what the table let go of (values' and predicates' deinits run here, and may
    /// call back), forgetting the custom names left without rules.
    ///
    /// The names are counted out before each object is released (the table releases a rule's
    /// predicate with its id), and a forgotten name's latest predicate is released with the
    /// rest: every deinit runs outside any access to the resolver's parts.
    func drainReleased() {
        while true {
            while let id = slab.popReleasedPredicateID() {
                if let forgotten = predicateNames.ruleReleased(id) { slab.park(forgotten) }
            }
            guard let object = slab.popReleased() else { return }
            withExtendedLifetime(object) {}
        }
    }
}
