// How a resolver applies a state, top to bottom: the rounds of its apply loop, the diff it
// reads and the writes, then what the loop keeps between them (ApplyState, PendingChanges).
// The contract of the public apply(_:), and the move that writes nothing, are with the rest of
// the API, in StateResolver.swift.

internal import CStateResolver

extension StateResolver {
    /// ``apply(_:)``, called by a method of `caller` (a control applying its own state), which
    /// its caller keeps alive until the method returns: a target there is written without
    /// retaining it.
    @discardableResult
    package func apply(_ state: ControlState, calledBy caller: AnyObject?) throws(ResolverError) -> Int {
        checkNotEvaluating("apply(_:)")
        guard applying.begin(state) else { return 0 }
        if applying.sweepsDeadTargets { sweepDeadTarget() }
        let writes: Int
        // A loop for each property access: the branch is taken once, not at each write.
        var callerAddress = Self.noCaller
        if let caller { callerAddress = Unmanaged.passUnretained(caller).toOpaque() }
        do {
            writes =
                try !targets.readsReferenceCounts
                ? applyRounds(direct: false, caller: callerAddress, checksAccesses: false)
                : AnyPropertyWriter.accessesInProgress
                    ? applyRounds(direct: true, caller: callerAddress, checksAccesses: true)
                    : applyRounds(direct: true, caller: callerAddress, checksAccesses: false)
        } catch {
            finishApplying()
            throw error
        }
        finishApplying()
        return writes
    }

    @inline(__always)
    private func finishApplying() {
        applying.isApplying = false
        if isSelf(rules.diffReader) { rules.diffReader = nil }
        releaseWhatWasLetGo()
    }

    /// Releases what an apply or a move's sweep let go of, when there is something.
    @inline(__always)
    func releaseWhatWasLetGo() {
        if !bindings.retired.isEmpty || rules.slab.hasReleased { releaseAfterApplying() }
    }

    /// Applies the requested state until setters stop changing it; returns the writes. `direct`:
    /// the targets' property access; `caller` and `checksAccesses`: see
    /// ``write(_:_:direct:caller:checksAccesses:)`` (no access in progress when the apply
    /// began means none when each write comes: user code that runs between writes returns
    /// with its accesses ended).
    ///
    /// Transparent: inlined at both calls whatever the size of `apply` (`@inline(__always)` is
    /// not, past the inliner's limit on the caller's size), so that each loop is compiled for
    /// its access, without a test of it at each write.
    @_transparent
    private func applyRounds(direct: Bool, caller: UnsafeMutableRawPointer, checksAccesses: Bool) throws(ResolverError) -> Int {
        var writes = 0, rounds = 0
        while let round = try applying.nextRound(&rounds) {
            guard applying.distinguishes(round.from, round.to) else { continue }
            try beginChanges(from: round.from, to: round.to)
            while let next = applying.pending.next() {
                let written: Bool
                switch next {
                case .current(let change):
                    guard let binding = bindings.binding(inSlot: change.slot) else { continue }  // purged
                    written = binding._withUnsafeGuaranteedRef {
                        write($0, Self.handle(change.new_value), direct: direct, caller: caller, checksAccesses: checksAccesses)
                    }
                case .stale(let change):
                    // Copied (a setter bound or removed values, or a call freed the diff), or
                    // made pair by pair: find the binding by its key and resolve again.
                    guard let binding = bindings[Self.key(change.target, change.key_path)] else { continue }
                    written = sync(binding)
                }
                if written { writes &+= 1 }
            }
        }
        return writes
    }

    /// Releases the bindings removed during the apply and the values and predicates the table
    /// let go of; their deinits (user code) run after it, and may call back.
    @inline(never)
    private func releaseAfterApplying() {
        let bindings = self.bindings.takeRetired()
        withExtendedLifetime(bindings) {}
        drainReleased()
    }

    private static func handle(_ value: csr_value) -> csr_value? { value == CSR_NO_VALUE ? nil : value }

    /// The `caller` of a write that no object's method calls: an address no object has (one
    /// comparison per write, not a test for nil and a comparison).
    @inline(__always)
    static var noCaller: UnsafeMutableRawPointer { UnsafeMutableRawPointer(bitPattern: 1).unsafelyUnwrapped }

    /// Starts the pending changes on the bindings whose value differs between two states: the C diff,
    /// read in place; when the table has no memory for a diff list, pair by pair (resolving
    /// never fails for lack of memory). Inlined in the apply loop, whose frame holds its
    /// out-parameters.
    @inline(__always)
    func beginChanges(from: ControlState, to: ControlState) throws(ResolverError) {
        if !computed.records.isEmpty { try bindComputedValues(for: to) }
        var pointer: UnsafePointer<csr_change>?
        var count = 0
        // On shared rules, another resolver's apply may be reading the diff this one frees.
        if let reader = rules.diffReader, !isSelf(reader) { reader.detachDiff() }
        let status = evaluating { csr_diff(rules.table, tableState(from), tableState(to), &pointer, &count) }
        if status == CSR_OK {
            rules.diffReader = Unmanaged.passUnretained(self)
            return applying.pending.begin(UnsafeBufferPointer(start: pointer, count: count))
        }
        try beginChangesPairByPair(from: from, to: to, status)
    }

    /// `state` as the C table is asked about it (to resolve and to diff): only the bits some
    /// rule tells apart (``ApplyState/sensitiveBits``, every bit once an `exactly` or custom
    /// rule is bound), so that states differing elsewhere share one cached resolution and
    /// diff. Those bits only grow while rules are bound, and a rule that adds some changes the
    /// table, which makes the diffs cached before it stale.
    @inline(__always)
    func tableState(_ state: ControlState) -> UInt64 { UInt64(state.rawValue & applying.sensitiveBits) }

    /// Runs a C call that may run custom predicates, marking it so that a predicate calling
    /// back is stopped instead of corrupting the table mid-computation.
    @inline(__always)
    func evaluating<Result>(_ call: () -> Result) -> Result {
        applying.isEvaluating = true
        defer { applying.isEvaluating = false }
        return call()
    }

    /// Stops the program when a custom predicate calls back into the resolver.
    @inline(__always)
    func checkNotEvaluating(_ method: @autoclosure () -> String) {
        if applying.isEvaluating {
            misuse(
                "StateResolver.\(method()) called from a custom predicate; a predicate must be a pure function of the state (its results are cached) and must not call the resolver"
            )
        }
    }

    /// Whether `reader` is this resolver, compared without a retain.
    @inline(__always)
    func isSelf(_ reader: Unmanaged<AnyObject>?) -> Bool { reader?.toOpaque() == Unmanaged.passUnretained(self).toOpaque() }

    // MARK: The writes

    /// Writes the value of `handle` (nil: the default) to the binding's target unless it holds
    /// that value already. Returns whether it wrote; a dead target is purged instead.
    ///
    /// The caller holds the binding: a setter may remove it. The value is borrowed from the
    /// slab (the writer copies it before any user code runs). The target is held through the
    /// write: with the direct access (`direct`, the target's
    /// ``BoundTarget/readsReferenceCounts``) by a reference taken unless its deinitialisation has
    /// begun; with the portable access by the reference its weak load made. A target whose
    /// `deinit` runs on the main actor as this resolver does (``BoundTarget/reportsLifetime``) is
    /// retained instead (portable) — or only checked not to have begun (direct) for a write that
    /// runs no user code — unless it is at `caller`, the object whose method applies (see
    /// ``apply(_:calledBy:)``), which holds itself.
    ///
    /// A direct write in place is checked for exclusivity, as an assignment is, unless
    /// `checksAccesses` is false: the apply loop found no access in progress on this thread.
    ///
    /// Inlined: the apply loop's hot path, one loop for each access.
    @discardableResult @inline(__always)
    func write(
        _ binding: Binding, _ handle: csr_value?, direct: Bool, caller: UnsafeMutableRawPointer = noCaller, checksAccesses: Bool = true
    ) -> Bool {
        let version = handle.map { rules.slab.version($0) } ?? 0
        guard version != binding.writtenVersion else { return false }
        // An inline value is copied out of the slab (a setter may bind values, which can move
        // the slab's storage); a box is borrowed from it.
        var word = handle.map { rules.slab.word($0) } ?? 0
        // A rule's value for a trivial writer is inline (a trivial value of 1 to 8 bytes): its
        // bits are stored, with no source to make (the direct access's commonest write).
        if direct, handle != nil, let trivial = binding.writer.trivialCopy {
            return writeDirect(binding, version, caller: caller, checksAccesses: checksAccesses) { [word] in
                trivial.write($0.address, bits: word)
            }
        }
        return withUnsafeBytes(of: &word) { word in
            let source =
                handle == nil
                ? ValueSource(defaultOf: binding)
                : ValueSlab.isInline(version)
                    ? ValueSource(inlineAt: word.baseAddress.unsafelyUnwrapped)
                    : ValueSource(boxAt: UnsafeRawPointer(bitPattern: word.load(as: UInt.self)).unsafelyUnwrapped)
            return write(binding, version, source, direct: direct, caller: caller, checksAccesses: checksAccesses)
        }
    }

    /// ``write(_:_:direct:caller:checksAccesses:)`` of the value at `source`, of `version`.
    @inline(__always)
    private func write(
        _ binding: Binding, _ version: UInt64, _ source: ValueSource, direct: Bool, caller: UnsafeMutableRawPointer,
        checksAccesses: Bool
    ) -> Bool {
        let target = binding.target
        if direct {
            return writeDirect(binding, version, caller: caller, checksAccesses: checksAccesses) { binding.writer.writeInline($0, source) }
        } else if target.reportsLifetime {
            guard target.lifetimeHasNotEnded else {
                purge(target)
                return false
            }
            binding.writtenVersion = version
            if target.address == caller {
                binding.writer.write(held: target.address, source)
            } else {
                let object = Unmanaged<AnyObject>.fromOpaque(target.address).retain()
                binding.writer.write(held: target.address, source)
                object.release()
            }
        } else {
            guard let object = target.weakObject else {
                purge(target)
                return false
            }
            binding.writtenVersion = version
            binding.writer.write(held: target.address, source)
            object.release()
        }
        return true
    }

    /// The direct access's write of a value of `version`, which `copy` stores in the target,
    /// with the target held as ``write(_:_:direct:caller:checksAccesses:)`` says. A
    /// view of a control is only checked not to be deallocating when it is the caller, or when
    /// the write runs no user code, which could let go of every other reference to it; any other
    /// target is held by a reference (one test of the record).
    @inline(__always)
    private func writeDirect(
        _ binding: Binding, _ version: UInt64, caller: UnsafeMutableRawPointer, checksAccesses: Bool,
        _ copy: (BoundTarget) -> Void
    ) -> Bool {
        let target = binding.target, address = target.address, writer = binding.writer
        let takesReference = !target.reportsLifetime || (address != caller && !writer.copiesTrivially)
        guard takesReference ? tryRetain(address) : !isDeallocating(address) else {
            purge(target)
            return false
        }
        // First: a setter that calls back sees the value being written as written.
        binding.writtenVersion = version
        if checksAccesses { writer.checkAccess(address) }
        copy(target)
        if takesReference { StatefulEngine.release(address) }
        return true
    }
}

// MARK: - What the apply keeps between rounds and writes

/// Where a resolver's applying stands: the applied state and the requested one, whether an
/// ``StateResolver/apply(_:)`` runs (a nested call only moves ``requested``) and the changes it
/// writes, the state bits that can change a value, and whether a C call that runs custom
/// predicates is under way.
@usableFromInline
struct ApplyState {
    /// The state whose values are applied.
    @usableFromInline var applied: ControlState
    /// The state the running apply goes to next (the last one asked for).
    @usableFromInline var requested: ControlState
    /// The state bits some rule can tell apart: a state change within the other bits changes no
    /// value, and an apply only moves ``applied``. Grows with the rules (an `exactly` or custom
    /// rule makes it every bit) and is reset when no rule is left.
    @usableFromInline var sensitiveBits: UInt = 0
    /// The applies started (wrapping), to sweep on every eighth.
    @usableFromInline private(set) var count: UInt32 = 0
    /// The changes the running apply is writing.
    var pending = PendingChanges()
    /// Whether an apply runs. (The two flags last, in the room after ``pending``'s 32-bit
    /// index: every control has a resolver, whose size malloc rounds up to 16 bytes.)
    @usableFromInline var isApplying = false
    /// True while a C call that can run custom predicates is under way (a predicate that calls
    /// back into the resolver is a misuse).
    var isEvaluating = false

    /// A resolver's state, with `state` applied.
    init(applied state: ControlState) {
        (applied, requested) = (state, state)
    }

    /// Asks for `state` and starts an apply; false when one runs already, which goes on to
    /// `state` once its current round of writes is done.
    @inline(__always)
    mutating func begin(_ state: ControlState) -> Bool {
        requested = state
        guard !isApplying else { return false }
        isApplying = true
        count &+= 1
        return true
    }

    /// Whether the apply (or move) just begun is one of the eighth that also sweep dead
    /// targets.
    @inlinable
    var sweepsDeadTargets: Bool { count & 7 == 0 }

    /// Moves to `state` as an apply that writes nothing would, counted as one: when none runs
    /// and no rule tells `state` from the applied state. False, with nothing changed,
    /// otherwise.
    @inlinable
    mutating func move(to state: ControlState) -> Bool {
        guard !isApplying, !distinguishes(applied, state) else { return false }
        count &+= 1
        (applied, requested) = (state, state)
        return true
    }

    /// The next round of the running apply: the states it moves between, with ``applied``
    /// moved to the requested state already; nil when the requested state is applied.
    ///
    /// - Parameter rounds: The rounds run so far, counted up.
    /// - Throws: ``ResolverError/cycle`` past ``StateResolver/maximumRounds`` rounds, with the
    ///   request withdrawn (the applied state stays the last one applied).
    @inline(__always)
    mutating func nextRound(_ rounds: inout Int) throws(ResolverError) -> (from: ControlState, to: ControlState)? {
        guard applied != requested else { return nil }
        rounds += 1
        guard rounds <= StateResolver.maximumRounds else {
            requested = applied
            throw .cycle
        }
        let from = applied
        applied = requested
        return (from, requested)
    }

    /// Whether some rule tells `from` and `to` apart (else no value differs between them).
    @inlinable
    func distinguishes(_ from: ControlState, _ to: ControlState) -> Bool {
        (from.rawValue ^ to.rawValue) & sensitiveBits != 0
    }
}

/// The changes an apply is writing: current ones, read in place from memory the C table owns
/// until its next mutation, or stale ones — copied before such a call (``detach()``), or made
/// pair by pair — whose bindings the loop finds by key and whose values it resolves again (a
/// setter may have bound or removed values since the diff: its slots and values may be those
/// of the rules before).
struct PendingChanges {
    /// A change, and whether it is current.
    enum Change {
        case current(csr_change)
        case stale(csr_change)
    }

    private var borrowed = UnsafeBufferPointer<csr_change>(start: nil, count: 0)
    private var stale: [csr_change] = []
    /// The next change's index. (32 bits: a table has at most `UInt32.max` slots, so as many
    /// changes; the resolver's flags take the room after it.)
    private var index: UInt32 = 0

    /// Starts on changes the C table owns (until its next mutation).
    mutating func begin(_ changes: UnsafeBufferPointer<csr_change>) {
        borrowed = changes
        if !stale.isEmpty { stale = [] }
        index = 0
    }

    /// Starts on changes that name no slot (a diff made pair by pair).
    mutating func begin(stale changes: [csr_change]) {
        borrowed = UnsafeBufferPointer(start: nil, count: 0)
        stale = changes
        index = 0
    }

    /// The next change, nil when every one was handed out.
    @inline(__always)
    mutating func next() -> Change? {
        if borrowed.baseAddress != nil {
            guard Int(index) < borrowed.count else { return nil }
            defer { index &+= 1 }
            return .current(borrowed[Int(index)])
        }
        guard Int(index) < stale.count else { return nil }
        defer { index &+= 1 }
        return .stale(stale[Int(index)])
    }

    /// Copies the changes not handed out yet, before a table call frees the memory they are in:
    /// they are stale from then on. Every mutation of the rules (a bind, a removal, a purge, a
    /// move to another table) detaches first, so a change handed out current names its binding's
    /// slot and value as they are.
    mutating func detach() {
        guard borrowed.baseAddress != nil else { return }
        stale = Array(borrowed[Int(index)...])
        borrowed = UnsafeBufferPointer(start: nil, count: 0)
        index = 0
    }
}
