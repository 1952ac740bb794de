// How a resolver finds, sweeps and purges its targets, and forgets bindings (the lifecycle of
// targets and bindings, over the TargetRegistry and BindingStore parts).

internal import CStateResolver

extension StateResolver {
    /// The target's record if it is bound; purges the record of an ended object whose address
    /// `object` now has (a record that does not keep its object's memory).
    func existingTarget(_ object: AnyObject) -> BoundTarget? {
        guard let bound = targets.record(at: object) else { return nil }
        // A record that keeps its object's memory is `object`'s (see `keepsMemory`): no
        // liveness check, which for a weak reference is a load through its side table.
        // Otherwise compared by address, which takes no reference to the target.
        if bound.keepsMemory || bound.liveAddress == Unmanaged.passUnretained(object).toOpaque() { return bound }
        purge(bound)
        return nil
    }

    /// The target's record, registered now if it is not bound yet.
    ///
    /// - Throws: ``ResolverError/tooManyTargets`` (nothing changed).
    func target(for object: AnyObject) throws(ResolverError) -> BoundTarget {
        if let bound = existingTarget(object) { return bound }
        sweepDeadTargets(2)  // bounded work that keeps dead targets from piling up as targets come
        // A resolver that shares rules is a control's, used on the main actor only.
        return try targets.add(object, access: processAccess, onMainActor: sharesRules)
    }

    /// Checks up to `count` bound targets, in turn, and purges those that were deallocated:
    /// every bind of a new target (the registry grows only then) checks two and every eighth
    /// apply one, so a dead target's rules, defaults and id go within a bounded amount of work
    /// however the program uses the resolver.
    ///
    /// - Complexity: O(`count`), plus the purges.
    func sweepDeadTargets(_ count: Int) {
        for _ in 0..<min(count, targets.count) { sweepDeadTarget() }
    }

    /// One step of ``sweepDeadTargets(_:)``, as an apply or a move makes it: no loop to set up.
    /// The purged values are released by the caller's drain, at its end (a bind's, an apply's).
    @inline(__always)
    func sweepDeadTarget() {
        if let dead = targets.nextDeadTarget() { purge(dead) }
    }

    /// Drops the rules of a target that was deallocated.
    func purge(_ bound: BoundTarget) {
        guard targets.contains(bound) else { return }
        if prepareToRemove(of: bound.id) { Self.expectSuccess(csr_remove_target(table, bound.id)) }
        for binding in bindings.bindings(ofTarget: bound.id) { bindings.remove(binding.key, retiring: applying.isApplying) }
        targets.remove(bound)
    }

    /// Forgets the binding of `key` (its rules are gone), and its target with its last binding.
    func forget(_ key: UInt64) {
        guard let binding = bindings.remove(key, retiring: applying.isApplying) else { return }
        if !bindings.hasBindings(ofTarget: binding.target.id) { targets.remove(binding.target) }
    }
}

/// The sweep of a move that counts as a sweeping apply (see
/// ``StateResolver/moveWithoutWrites(to:)``). A free function: the move's caller then calls it
/// last, as a jump, with no frame of its own. A move lets go of nothing else: only a purge
/// leaves something to release.
@usableFromInline @inline(never)
func sweepAfterMoving(_ resolver: StateResolver) {
    if !resolver.targets.skipsLiveTarget() { purgeAfterMoving(resolver) }
}

/// The rest of a move's sweep step: checks the target under the cursor, purges it if it is dead,
/// and releases what that let go of. Out of line: the step that finds a live target needs no
/// frame.
@inline(never)
private func purgeAfterMoving(_ resolver: StateResolver) {
    guard let dead = resolver.targets.deadTargetUnderCursor() else { return }
    resolver.purge(dead)
    resolver.releaseWhatWasLetGo()
}
