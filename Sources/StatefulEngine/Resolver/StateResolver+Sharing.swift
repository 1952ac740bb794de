// How a resolver shares its rules with the resolvers that made the same binds (see RuleTable):
// moving between tables, and making its own before any other change.

internal import CStateResolver

extension StateResolver {
    /// Before the rule of `descriptor` binding `box` (or inline `bits`) is added to the pair,
    /// on shareable rules (made by `history`): moves to the table another resolver made with
    /// the same binds and this one, if there is one — and returns `found`, the rule being there
    /// — or makes sure the table is this resolver's alone (a copy), and returns the history to
    /// record once the rule is added (nil: a bind that cannot be shared, one that replaces a
    /// rule's value — the history would keep the value replaced —, or one past
    /// ``RuleTable/maximumSharedBinds``, which makes the rules private).
    ///
    /// - Complexity: O(1) when the rules are the resolver's own; else a registry lookup
    ///   (comparing at most ``RuleTable/maximumSharedBinds`` binds when the hashes agree), plus
    ///   a copy of the table when another resolver holds it.
    /// - Throws: ``ResolverError/outOfMemory`` when there is no memory for the copy; the
    ///   resolver is then unchanged.
    func prepareToAdd(
        _ descriptor: StateDescriptor, _ box: AnyValueBox?, inline bits: UInt64, to target: UInt32, _ keyPathID: UInt32,
        after history: BindHistory
    ) throws(ResolverError) -> (found: Bool, next: BindHistory?) {
        let cDescriptor = Self.cDescriptor(descriptor)
        let next =
            history.count < RuleTable.maximumSharedBinds && !history.hasRule(of: target, keyPathID, cDescriptor)
            ? SharedBind.make(target: target, keyPath: keyPathID, descriptor: cDescriptor, box: box, bits: bits)
                .map { history.appending($0.bind, valueHash: $0.valueHash) } : nil
        if let next, let shared = RuleTable.registered(next), shared !== rules {
            move(to: shared)
            return (true, next)
        }
        if !rules.isHeldByOneResolver { move(to: try rules.copy(keepsHistory: true)) }
        return (false, next)
    }

    /// Makes the rules this resolver's own before it changes them other than by a shared bind
    /// (a removal or a purge, through ``prepareToRemove(of:_:_:)``; a cache budget) — a copy
    /// when other resolvers hold them; they stay its own until every value is removed (see
    /// ``StateResolver/removeAllValues()``) — and detaches the apply reading their last diff,
    /// which the change may free.
    ///
    /// Its callers cannot throw (a removal, a purge, a cache budget): when there is no memory
    /// for the copy, the program stops, as a failed allocation does.
    ///
    /// - Complexity: O(1) when they are its own; else a copy of at most
    ///   ``RuleTable/maximumSharedBinds`` binds.
    func makeRulesPrivate() {
        if rules.history != nil {
            if rules.isHeldByOneResolver {
                rules.makePrivate()
            } else {
                do { move(to: try rules.copy(keepsHistory: false)) } catch {
                    stop(for: error, in: "StateResolver's copy of its shared rule table")
                }
            }
        }
        detachDiffReader()
    }

    /// Before a removal of the rules of `target` — of its `keyPath` only when given, of
    /// `descriptor` for that pair only when given too: whether the rules may hold such a rule,
    /// made this resolver's own then (``makeRulesPrivate()``). Shareable rules hold exactly the
    /// rules their binds set, so a removal that would find none there is not made: the rules
    /// stay shared (the shared empty one too, on which ``removeAllValues()`` writes defaults
    /// back while setters may remove values and dead targets may be purged).
    ///
    /// - Complexity: O(*b*) in the binds of shareable rules (at most
    ///   ``RuleTable/maximumSharedBinds``), plus ``makeRulesPrivate()``.
    func prepareToRemove(of target: UInt32, _ keyPath: UInt32? = nil, _ descriptor: csr_descriptor? = nil) -> Bool {
        if let history = rules.history, !history.hasRule(of: target, keyPath, descriptor) { return false }
        makeRulesPrivate()
        return true
    }

    /// Moves to the shared empty table: what removing every rule of shared rules leaves.
    func moveToEmptyRules() { move(to: .empty) }

    /// Moves to `table`, made by the binds that made the current rules (and maybe one more):
    /// the same slots, handles and versions for the pairs both hold. The bindings are indexed
    /// again by their slots in `table`; the table left is parked for the caller's drain (its
    /// values' deinits may run when it goes).
    private func move(to table: RuleTable) {
        detachDiffReader()
        let left = rules
        RuleTable.join(table)
        RuleTable.leave(left)
        rules = table
        if table === RuleTable.empty {
            bindings.forgetTable()
        } else {
            bindings.reindex { binding in
                var slot: UInt32 = 0
                return csr_slot(table.table, binding.target.id, binding.keyPathID, &slot) == CSR_OK ? slot : nil
            }
        }
        slab.park(left)
    }
}

// MARK: The diff another apply reads in place

extension StateResolver {
    /// Before a call that may free the table's last diff (another diff, a mutation, a cache
    /// release): the apply reading it in place — this resolver's, or on a shared table
    /// another's — goes on with a copy of the changes it has not written yet, stale (see
    /// ``PendingChanges/detach()``).
    func detachDiffReader() {
        applying.pending.detach()
        if let reader = rules.diffReader {
            reader.detachDiff()
            rules.diffReader = nil
        }
    }
}

extension StateResolver: DiffReader {
    func detachDiff() { applying.pending.detach() }
}
