internal import CStateResolver

/// Resolves and applies values bound to (target, key path, state descriptor).
///
/// A resolver owns one C rule table (Judy-backed, see `CStateResolver`). Values are bound with
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
/// Targets are not kept alive (nor referenced weakly, see `BoundTarget`). A target that is
/// deallocated is skipped and its rules purged; a new object that happens to get the same
/// address is a new target and never receives them.
///
/// A property stored in place — a `var` of a final class, or a `final var` — is written at its
/// address; a computed, observed (`didSet`) or overridable property of the target is written by
/// calling its setter as the key path would, without the standard library's key-path
/// projection. Only a path through another object or a subscript pays that projection (about a
/// thousand instructions and a heap allocation per write): bind such a property on the object
/// that holds it.
///
/// A resolver is not thread-safe and not actor-bound: use each resolver from one isolation
/// domain at a time (a thread, an actor, or the main actor for a `Control` of the controls
/// module); resolvers on different threads are independent. Setters, value deinits and
/// handlers may call back into the resolver (see ``apply(_:)``); a custom predicate may not
/// (the program stops with a message).
public final class StateResolver {
    let table: OpaquePointer
    let slab = ValueSlab()
    private var targetIDs: [ObjectIdentifier: UInt32] = [:]
    private var targets: [UInt32: BoundTarget] = [:]
    /// Key paths by the property they lead to (see ``PropertyPath``), and the cache in front.
    private var keyPathIDs: [KeyPathFromClass: UInt32] = [:]
    private var propertyIDs: [PropertyPath: UInt32] = [:]
    private(set) var bindings: [UInt64: Binding] = [:]
    /// The bindings by their C slot (see `csr_slot`), so that a change of the diff finds its
    /// binding without a lookup; checked against the change's key, as slots are reused.
    /// Unretained: ``bindings`` owns them, and ``retired`` keeps the ones removed during an
    /// apply alive until it ends, so the apply loop borrows each binding without a retain.
    @exclusivity(unchecked) private var bindingsBySlot: ContiguousArray<Unmanaged<Binding>?> = []
    /// Bindings removed while an apply runs (by a setter, a deinit, or a dead target's purge):
    /// the apply may be writing one of them. Released when the outermost apply ends.
    @exclusivity(unchecked) var retired: [Binding] = []
    /// The state bits some rule can tell apart: a state change within the other bits changes no
    /// value, and ``apply(_:)`` only moves ``appliedState``. Grows with the rules (an `exactly`
    /// or custom rule makes it every bit) and is reset when no rule is left.
    @exclusivity(unchecked) private(set) var sensitiveBits: UInt = 0
    /// The changes an apply is writing: read in place from the C table, and copied before any
    /// table call that could free them (a setter that binds or removes values).
    @exclusivity(unchecked) var pending = PendingChanges()
    /// Custom descriptors' names by id, and the number of rules (predicate boxes the table
    /// holds) of each: a name is forgotten with its last rule.
    private var predicateIDs: [String: UInt64] = [:]
    private var predicates: [UInt64: (name: String, box: PredicateBox, rules: Int)] = [:]
    private var lastPredicateID: UInt64 = 0
    /// The number of custom descriptor names some rule uses.
    var customNameCount: Int { predicateIDs.count }
    private(set) var nextTargetID: UInt32 = 1
    /// Ids of targets that went, reused before new ones are taken (the table holds no rule of
    /// them).
    private var freeTargetIDs: [UInt32] = []
    /// Every bound target, in no particular order, and the next one ``sweepDeadTargets(_:)``
    /// checks.
    @exclusivity(unchecked) private var sweepList: ContiguousArray<BoundTarget> = []
    @exclusivity(unchecked) private var sweepCursor = 0
    @exclusivity(unchecked) var applyCount: UInt = 0
    /// Counts the rule mutations a setter can make (binding and removing values), so an apply
    /// can tell that its change list went stale. Purging a dead target does not count: its
    /// changes are skipped (its bindings are gone; its id is only reused by a later bind, which
    /// counts) and no other binding's value moves.
    @exclusivity(unchecked) private(set) var mutationCount = 0
    /// True while a C call that can run custom predicates is under way: a predicate that
    /// calls back into the resolver is a misuse, stopped by ``checkNotEvaluating(_:)``.
    @exclusivity(unchecked) private var isEvaluating = false
    @exclusivity(unchecked) var isApplying = false
    /// Whether an ``apply(_:)`` is running. A getter, not the stored property: another module
    /// accessing the property directly would add a runtime exclusivity check of its own.
    package var isApplyingChanges: Bool { isApplying }
    @exclusivity(unchecked) var requestedState: ControlState

    /// The most rounds one ``apply(_:)`` runs when setters keep changing the state.
    package static let maximumRounds = 64

    /// The state whose values are applied.
    public var appliedState: ControlState { applied }
    /// Stored apart from the public getter: a client module accessing a public stored property
    /// directly adds a runtime exclusivity check of its own.
    @exclusivity(unchecked) var applied: ControlState

    /// Creates an empty resolver whose values count as applied for `state`.
    public init(state: ControlState = .normal) {
        var table: OpaquePointer?
        // The table calls this mid-mutation: values are only parked, and released (their
        // deinits run) once the C call has returned, by `drainReleased()`.
        let status = csr_table_create(&table, { value, predicateContext, context in
            let slab = Unmanaged<ValueSlab>.fromOpaque(context!).takeUnretainedValue()
            slab.remove(value)
            if let predicateContext { slab.release(Unmanaged<PredicateBox>.fromOpaque(predicateContext).takeRetainedValue()) }
        }, Unmanaged.passUnretained(slab).toOpaque())
        guard status == CSR_OK, let table else {
            fatalError("StatefulControls: StateResolver cannot create its rule table: out of memory")
        }
        self.table = table
        self.applied = state
        self.requestedState = state
    }

    deinit { csr_table_destroy(table) }

    // MARK: Binding values

    /// Binds `value` to `keyPath` of `target` for the states `descriptor` matches.
    ///
    /// A value with the same descriptor identity replaces the earlier one and counts as set
    /// most recently. The first value bound to a (target, key path) captures its current value
    /// as the default. When the new value wins for ``appliedState`` it is written at once.
    ///
    /// - Throws: ``ResolverError/outOfMemory`` (nothing changed) or another ``ResolverError``.
    /// - Complexity: O(log *n*) in the bound (target, key path) pairs for the Judy lookups,
    ///   plus O(*r*) in the rules of this pair; the cached resolutions of this pair are
    ///   invalidated, not recomputed.
    public func setValue<Target: AnyObject, Value>(
        _ value: Value, for keyPath: ReferenceWritableKeyPath<Target, Value>, of target: Target,
        when descriptor: StateDescriptor
    ) throws(ResolverError) {
        checkNotEvaluating("setValue(_:for:of:when:)")
        sweepDeadTargets(2)  // bounded work that keeps dead targets from piling up
        let bound = try self.target(for: target)
        let keyPathID = self.keyPathID(keyPath, of: target)
        let key = Self.key(bound.id, keyPathID)
        let existing = bindings[key]
        if existing == nil {
            let defaultValue = ValueBox(target[keyPath: keyPath])
            let writer = processStrategy.writer(keyPath, targetClass: type(of: target as AnyObject), box: defaultValue)
            bindings[key] = Binding(target: bound, keyPathID: keyPathID, writer: writer, defaultValue: defaultValue)
            bound.keyPathIDs.insert(keyPathID)
        }
        do {
            let handle = try slab.insert(ValueBox(value))
            var cDescriptor = self.cDescriptor(forSetting: descriptor)
            pending.detach()
            let status = csr_set(table, bound.id, keyPathID, &cDescriptor, handle)
            if status != CSR_OK {
                slab.remove(handle)
                if let context = cDescriptor.predicate_context { slab.release(Unmanaged<PredicateBox>.fromOpaque(context).takeRetainedValue()) }
                drainReleased()
                try ResolverError.check(status)
            }
        } catch {
            if existing == nil { forget(key) }
            throw error
        }
        mutationCount += 1
        sensitiveBits |= descriptor.sensitiveBits
        drainReleased()
        guard let binding = bindings[key] else { return }
        var slot: UInt32 = 0
        Self.expectSuccess(csr_slot(table, bound.id, keyPathID, &slot))
        binding.slot = slot
        if bindingsBySlot.count <= Int(slot) { bindingsBySlot.append(contentsOf: repeatElement(nil, count: Int(slot) + 1 - bindingsBySlot.count)) }
        bindingsBySlot[Int(slot)] = Unmanaged.passUnretained(binding)
        sync(binding)
    }

    /// Removes the value bound to `keyPath` of `target` for exactly `descriptor` (same identity).
    ///
    /// If that value was applied, the next winner (or the default) is written. When it was the
    /// binding's last value, the binding is forgotten and a later bind captures a new default.
    /// - Returns: Whether there was such a value.
    /// - Complexity: O(log *n*) in the bound pairs, plus O(*r*) in the rules of this pair.
    @discardableResult
    public func removeValue<Target: AnyObject, Value>(
        for keyPath: ReferenceWritableKeyPath<Target, Value>, of target: Target, when descriptor: StateDescriptor
    ) -> Bool {
        checkNotEvaluating("removeValue(for:of:when:)")
        // A custom name no rule uses cannot match a rule (and is not remembered).
        guard let binding = binding(keyPath, of: target), var cDescriptor = existingCDescriptor(descriptor) else { return false }
        pending.detach()
        let status = csr_remove(table, binding.target.id, binding.keyPathID, &cDescriptor)
        Self.expectSuccess(status)
        guard status == CSR_OK else { return false }
        mutationCount += 1
        drainReleased()
        settle([binding])
        return true
    }

    /// Removes every value bound to `keyPath` of `target` and writes its default back if a
    /// bound value was applied.
    ///
    /// - Complexity: O(log *n*) in the bound pairs, plus O(*r*) in the rules removed.
    public func removeValues<Target: AnyObject, Value>(
        for keyPath: ReferenceWritableKeyPath<Target, Value>, of target: Target
    ) {
        checkNotEvaluating("removeValues(for:of:)")
        guard let binding = binding(keyPath, of: target) else { return }
        remove([binding]) { Self.expectSuccess(csr_remove_binding(table, binding.target.id, binding.keyPathID)) }
    }

    /// Removes every value bound to any key path of `target`, writing defaults back in the
    /// order ``apply(_:)`` writes.
    ///
    /// - Complexity: O(*k* log *n*) for the target's *k* key paths, plus the rules removed.
    public func removeValues(of target: AnyObject) {
        checkNotEvaluating("removeValues(of:)")
        guard let bound = existingTarget(target) else { return }
        remove(bound.keyPathIDs.sorted().map { bindings[Self.key(bound.id, $0)]! }) {
            Self.expectSuccess(csr_remove_target(table, bound.id))
        }
    }

    /// Removes every bound value, writing defaults back in the order ``apply(_:)`` writes.
    ///
    /// - Complexity: O(*n* + *r*) in the bound pairs and rules.
    public func removeAllValues() {
        checkNotEvaluating("removeAllValues()")
        remove(bindings.keys.sorted().map { bindings[$0]! }) {
            csr_remove_all(table)
            sensitiveBits = 0
        }
    }

    /// Removes bindings through `removeRules`, then settles them in first-bind order.
    private func remove(_ removed: [Binding], removeRules: () -> Void) {
        pending.detach()
        removeRules()
        mutationCount += 1
        drainReleased()
        settle(removed)
    }

    /// Brings bindings whose rules changed to their value for the applied state, in order,
    /// forgetting those left without rules. Setters run here and may call back: a binding a
    /// setter binds again is kept (with its default), and its new winner written.
    private func settle(_ changed: [Binding]) {
        for binding in changed {
            sync(binding)
            if bindings[binding.key] === binding, ruleCount(of: binding) == 0 { forget(binding.key) }
        }
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
        let handle = resolve(binding.key, in: state)
        let box = handle.map { slab[$0] } ?? binding.defaultValue
        return (box as? ValueBox<Value>)?.value
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
        get { Int(stats.cache_budget) }
        set {
            guard newValue >= 0 else { misuse("StateResolver.cacheBudget set to \(newValue); a budget is a number of bytes, 0 or more") }
            pending.detach()  // the diff an apply is reading may be evicted
            Self.expectSuccess(csr_set_cache_budget(table, newValue))
        }
    }

    /// The bytes the caches hold now (at most ``cacheBudget``, plus the diff being applied).
    var cacheBytes: Int { Int(stats.cache_bytes) }

    private var stats: csr_stats {
        var stats = csr_stats()
        csr_get_stats(table, &stats)
        return stats
    }

    // MARK: Internals shared with apply, explain and lint

    static func key(_ target: UInt32, _ keyPath: UInt32) -> UInt64 { UInt64(target) << 32 | UInt64(keyPath) }

    func resolve(_ key: UInt64, in state: ControlState) -> csr_value? {
        var value: csr_value = 0
        let status = evaluating {
            csr_resolve(table, UInt32(key >> 32), UInt32(truncatingIfNeeded: key), UInt64(state.rawValue), &value)
        }
        Self.expectSuccess(status)
        return status == CSR_OK ? value : nil
    }

    /// Traps on a status that only a corrupt table can produce.
    static func expectSuccess(_ status: csr_status) {
        do { try ResolverError.check(status) } catch {
            internalInconsistency("StateResolver: \(error) (status \(status.rawValue))")
        }
    }

    /// Runs a C call that may run custom predicates, marking it so that a predicate calling
    /// back is stopped instead of corrupting the table mid-computation.
    @inline(__always)
    func evaluating<Result>(_ call: () -> Result) -> Result {
        isEvaluating = true
        defer { isEvaluating = false }
        return call()
    }

    /// Stops the program when a custom predicate calls back into the resolver.
    @inline(__always)
    func checkNotEvaluating(_ method: @autoclosure () -> String) {
        if isEvaluating {
            misuse("StateResolver.\(method()) called from a custom predicate; a predicate must be a pure function of the state (its results are cached) and must not call the resolver")
        }
    }

    /// Writes the value of `handle` (nil: the default) to the binding's target unless it holds
    /// that value already. Returns whether it wrote; a dead target is purged instead.
    ///
    /// The caller holds the binding: a setter may remove it. Everything else is borrowed —
    /// the value from the slab (the writer copies it before any user code runs), the target
    /// by address (a setter that is user code gets a retained reference from the writer).
    @discardableResult
    func write(_ binding: Binding, _ handle: csr_value?) -> Bool {
        let version = handle.map { slab.version($0) } ?? 0
        guard version != binding.writtenVersion else { return false }
        guard let address = binding.target.liveAddress else {
            purge(binding.target)
            return false
        }
        // Recorded first: a setter that calls back sees the value being written as written.
        binding.writtenVersion = version
        let box = handle.map(slab.boxAddress) ?? binding.defaultValueAddress
        let writer = binding.writer
        if let trivialCopy = writer.trivialCopy { trivialCopy.write(address, box) } else { writer.write(address, box) }
        return true
    }

    /// Writes the binding's value for the applied state, if it does not hold it already.
    @discardableResult
    func sync(_ binding: Binding) -> Bool {
        write(binding, resolve(binding.key, in: appliedState))
    }

    /// The number of rules of a binding.
    private func ruleCount(of binding: Binding) -> Int {
        var count = 0
        Self.expectSuccess(csr_explain(table, binding.target.id, binding.keyPathID, 0, nil, 0, &count))
        return count
    }

    /// The descriptor of a rule of the C table, as `csr_explain` (a candidate's `rule`) and
    /// `csr_lint` (a lint rule's `rule`) report it.
    func descriptor(of rule: csr_rule) -> StateDescriptor {
        let state = ControlState(rawValue: UInt(rule.mask))
        switch rule.mode {
        case CSR_EXACTLY: return .exactly(state, priority: rule.priority)
        case CSR_CONTAINING: return .containing(state, priority: rule.priority)
        case CSR_NOT_CONTAINING: return .notContaining(state, priority: rule.priority)
        case CSR_CONTAINING_ANY: return .containingAny(state, priority: rule.priority)
        case CSR_CONTAINING_NONE: return .containingNone(state, priority: rule.priority)
        default:
            let predicate = predicates[rule.predicate_id]!
            return .custom(predicate.name, priority: rule.priority, predicate.box.predicate)
        }
    }

    /// The binding a change of the diff is about, unretained (see ``bindingsBySlot``).
    @inline(__always)
    func binding(for change: csr_change) -> Unmanaged<Binding>? {
        let key = Self.key(change.target, change.key_path)
        if Int(change.slot) < bindingsBySlot.count, let binding = bindingsBySlot[Int(change.slot)],
           binding._withUnsafeGuaranteedRef({ $0.key == key }) {
            return binding
        }
        return bindings[key].map(Unmanaged.passUnretained)
    }

    func binding<Target: AnyObject, Value>(_ keyPath: ReferenceWritableKeyPath<Target, Value>, of target: Target) -> Binding? {
        guard let bound = existingTarget(target) else { return nil }
        return bindings[Self.key(bound.id, keyPathID(keyPath, of: target))]
    }

    // MARK: Targets and key paths

    /// The target's record if it is bound; purges the record of a dead object whose address
    /// `object` now has.
    private func existingTarget(_ object: AnyObject) -> BoundTarget? {
        guard let id = targetIDs[ObjectIdentifier(object)], let bound = targets[id] else { return nil }
        if bound.object === object { return bound }
        purge(bound)
        return nil
    }

    private func target(for object: AnyObject) throws(ResolverError) -> BoundTarget {
        if let bound = existingTarget(object) { return bound }
        let id: UInt32
        if let free = freeTargetIDs.popLast() {
            id = free
        } else {
            guard nextTargetID < UInt32.max else { throw .tooManyTargets }
            id = nextTargetID
            nextTargetID += 1
        }
        let bound = BoundTarget(object, id: id, access: processStrategy.access)
        targetIDs[bound.objectID] = bound.id
        targets[bound.id] = bound
        bound.sweepIndex = sweepList.count
        sweepList.append(bound)
        return bound
    }

    /// Checks up to `count` bound targets, in turn, and purges those that were deallocated:
    /// every bind checks two and every eighth apply one, so a dead target's rules, defaults
    /// and id go within a bounded amount of work however the program uses the resolver.
    ///
    /// - Complexity: O(`count`), plus the purges.
    func sweepDeadTargets(_ count: Int) {
        for _ in 0..<min(count, sweepList.count) {
            if sweepCursor >= sweepList.count { sweepCursor = 0 }
            let bound = sweepList[sweepCursor]
            if bound.liveAddress == nil { purge(bound) } else { sweepCursor += 1 }  // a purge moves another here
        }
        // The purged values are released by the caller's drain, at its end (a bind's, an apply's).
    }

    /// The id of the property `keyPath` leads to from `target`: key paths from different root
    /// types to one property share it.
    private func keyPathID<Target, Value>(_ keyPath: ReferenceWritableKeyPath<Target, Value>, of target: Target) -> UInt32 {
        let rootClass: AnyClass = type(of: target as AnyObject)
        let key = KeyPathFromClass(keyPath: keyPath, rootClass: ObjectIdentifier(rootClass))
        if let id = keyPathIDs[key] { return id }
        let property = processStrategy.property(keyPath, valueType: Value.self, rootClass: rootClass)
        let id = propertyIDs[property] ?? UInt32(propertyIDs.count)
        propertyIDs[property] = id
        keyPathIDs[key] = id
        return id
    }

    /// Drops the rules of a target that was deallocated.
    func purge(_ bound: BoundTarget) {
        guard targets[bound.id] === bound else { return }
        pending.detach()
        Self.expectSuccess(csr_remove_target(table, bound.id))
        for keyPathID in bound.keyPathIDs {
            if let binding = bindings.removeValue(forKey: Self.key(bound.id, keyPathID)) { forgetSlot(of: binding) }
        }
        bound.keyPathIDs.removeAll()
        dropTarget(bound)
    }

    private func forget(_ key: UInt64) {
        guard let binding = bindings.removeValue(forKey: key) else { return }
        forgetSlot(of: binding)
        binding.target.keyPathIDs.remove(binding.keyPathID)
        if binding.target.keyPathIDs.isEmpty { dropTarget(binding.target) }
    }

    private func forgetSlot(of binding: Binding) {
        if Int(binding.slot) < bindingsBySlot.count, bindingsBySlot[Int(binding.slot)]?.toOpaque() == Unmanaged.passUnretained(binding).toOpaque() {
            bindingsBySlot[Int(binding.slot)] = nil
        }
        if isApplying { retired.append(binding) }
    }

    private func dropTarget(_ bound: BoundTarget) {
        targets[bound.id] = nil
        if targetIDs[bound.objectID] == bound.id { targetIDs[bound.objectID] = nil }
        let last = sweepList.removeLast()
        if last !== bound {
            sweepList[bound.sweepIndex] = last
            last.sweepIndex = bound.sweepIndex
        }
        freeTargetIDs.append(bound.id)
    }

    /// The C descriptor of `d` for a new rule: a custom one gets its name's id (a new name a
    /// new id) and a predicate box, counted as one of the name's rules until the table
    /// releases it.
    private func cDescriptor(forSetting d: StateDescriptor) -> csr_descriptor {
        var c = Self.cDescriptor(d)
        guard case .custom(let name) = d.mode, let predicate = d.predicate else { return c }
        let id: UInt64
        if let known = predicateIDs[name] {
            id = known
        } else {
            lastPredicateID += 1
            id = lastPredicateID
            predicateIDs[name] = id
        }
        let box = PredicateBox(id: id, predicate)
        predicates[id] = (name, box, (predicates[id]?.rules ?? 0) + 1)
        c.predicate_id = id
        c.predicate_context = Unmanaged.passRetained(box).toOpaque()
        return c
    }

    /// The C descriptor of `d` to find an existing rule; nil for a custom name no rule uses.
    private func existingCDescriptor(_ d: StateDescriptor) -> csr_descriptor? {
        var c = Self.cDescriptor(d)
        guard case .custom(let name) = d.mode else { return c }
        guard let id = predicateIDs[name] else { return nil }
        c.predicate_id = id
        return c
    }

    private static func cDescriptor(_ d: StateDescriptor) -> csr_descriptor {
        var c = csr_descriptor(mode: CSR_EXACTLY, mask: UInt64(d.state.rawValue), priority: d.priority,
                               predicate: nil, predicate_context: nil, predicate_id: 0)
        switch d.mode {
        case .exactly: c.mode = CSR_EXACTLY
        case .containing: c.mode = CSR_CONTAINING
        case .notContaining: c.mode = CSR_NOT_CONTAINING
        case .containingAny: c.mode = CSR_CONTAINING_ANY
        case .containingNone: c.mode = CSR_CONTAINING_NONE
        case .custom:
            c.mode = CSR_CUSTOM
            c.predicate = predicateTrampoline
        }
        return c
    }

    /// Releases what the table let go of (values' and predicates' deinits run here, and may
    /// call back), forgetting the custom names left without rules.
    func drainReleased() {
        guard slab.hasReleased else { return }
        for id in slab.takeReleasedPredicateIDs() {
            guard let entry = predicates[id] else { continue }
            if entry.rules > 1 {
                predicates[id]?.rules = entry.rules - 1
            } else {
                predicates[id] = nil
                predicateIDs[entry.name] = nil
            }
        }
        slab.drainReleased()
    }
}

/// A key path applied to targets of one class (see ``PropertyPath``).
private struct KeyPathFromClass: Hashable {
    let keyPath: AnyKeyPath
    let rootClass: ObjectIdentifier
}

/// Calls a custom descriptor's predicate from C.
private let predicateTrampoline: csr_predicate_fn = { state, context in
    Unmanaged<PredicateBox>.fromOpaque(context!).takeUnretainedValue().predicate(ControlState(rawValue: UInt(state)))
}
