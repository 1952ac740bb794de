// A resolver's record of one bound target: its id, its object, and whether it still lives.

/// A bound target (its bindings are the ``BindingStore``'s, by its id).
///
/// The target is not kept alive. With the portable property access the record holds a weak
/// reference (a ``PortableBoundTarget``), or, for an object that reports the end of its life
/// (``ReportsLifetime``: the library's views) bound by a resolver of the main actor, that
/// object's ``TargetLifetime`` (a ``LifetimeBoundTarget``). With the direct access it holds an
/// unowned reference (a `DirectBoundTarget`), which keeps only the object's memory (its header,
/// not its properties) until the record goes; a write takes a strong reference first, which
/// fails once the object's deinitialisation has begun (`tryRetain(_:)`), so an object
/// released on another thread meanwhile is never written after its end — except where the
/// object's `deinit` runs on the main actor as the resolver does (``reportsLifetime``), which a
/// check of its reference counts then covers. A weak reference gives its object a side table, which sends every retain and
/// release of the object, anywhere in the program, down the runtime's slow path; the other two
/// records give it none. One subclass for each, so that a record holds only what its access
/// reads: 40 bytes, 48 for a weak one.
class BoundTarget {
    /// The object's address, while the record is registered (see ``keepsMemory``). Also its
    /// identity.
    final let address: UnsafeMutableRawPointer
    final let id: UInt32
    /// Whether the object's `deinit` runs on the main actor, where the resolver runs (an object
    /// that reports its lifetime, bound by a resolver of the main actor): no `deinit` can then
    /// begin between a liveness check and the write that follows, wherever its last reference
    /// goes, and a write needs no reference of its own. With the portable access, whether this is
    /// a ``LifetimeBoundTarget`` (else a ``PortableBoundTarget``). Read by the apply loop without
    /// a virtual call. (Declared beside ``id``: it takes that field's padding.)
    final let reportsLifetime: Bool
    /// Whether the record keeps its object's memory allocated (an unowned reference), dead or
    /// alive, until it goes: no other object can then take ``address``, so an object found at
    /// that address is this record's, and lives while its finder holds it. All records but a
    /// ``LifetimeBoundTarget``, whose ended object's address a new object may take.
    final let keepsMemory: Bool

    fileprivate init(_ object: AnyObject, id: UInt32, reportsLifetime: Bool = false, keepsMemory: Bool = true) {
        (address, self.id) = (Unmanaged.passUnretained(object).toOpaque(), id)
        (self.reportsLifetime, self.keepsMemory) = (reportsLifetime, keepsMemory)
    }

    /// The record of `object` for the property access `access`, for a resolver used on the main
    /// actor only (`onMainActor`) or not: a ``TargetLifetime`` says whether its object lives
    /// only to code on the main actor, where the `deinit` that ends it runs.
    static func make(_ object: AnyObject, id: UInt32, access: PropertyAccess, onMainActor: Bool) -> BoundTarget {
        // The gate (see PropertyAccess.selectStrategy).
        #if os(Linux) && arch(x86_64) && canImport(Glibc) && !_runtime(_ObjC) && !STATEFULCONTROLS_PORTABLE_ONLY
            if access == .direct {
                return DirectBoundTarget(object, id: id, deinitOnMainActor: onMainActor && reportsLifetime(object))
            }
        #endif
        if onMainActor, reportsLifetime(object), let reporting = object as? any ReportsLifetime {
            return LifetimeBoundTarget(object, id: id, reporting.lifetime)
        }
        return PortableBoundTarget(object, id: id)
    }

    /// The class last asked about by ``reportsLifetime(_:)``, and the answer: a conformance
    /// check is a lookup, and a control binds many targets of one class. Read and written by
    /// resolvers of the main actor only.
    nonisolated(unsafe) private static var lastClassAsked: (class: ObjectIdentifier, reports: Bool)?

    /// Whether `object` reports its lifetime (``ReportsLifetime``), for a resolver of the main
    /// actor.
    private static func reportsLifetime(_ object: AnyObject) -> Bool {
        let objectClass = ObjectIdentifier(type(of: object))
        if let lastClassAsked, lastClassAsked.class == objectClass { return lastClassAsked.reports }
        let reports = object is any ReportsLifetime
        lastClassAsked = (objectClass, reports)
        return reports
    }

    /// Whether liveness is read from the object's reference counts (the direct access), else
    /// from a weak reference.
    var readsReferenceCounts: Bool { false }

    /// The object's address while it lives; nil once its deinitialisation has begun.
    var liveAddress: UnsafeMutableRawPointer? { internalInconsistency("BoundTarget is abstract") }

    /// The object while it lives; nil once its deinitialisation has begun.
    final var object: AnyObject? {
        liveAddress.map { Unmanaged<AnyObject>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Whether the object of a ``LifetimeBoundTarget`` lives (the portable access): its
    /// lifetime has not ended, so the object is at ``address``.
    @inline(__always)
    final var lifetimeHasNotEnded: Bool { !unsafeDowncast(self, to: LifetimeBoundTarget.self).lifetime.hasEnded }

    /// The object of a ``PortableBoundTarget`` (the portable access), loaded from its weak
    /// reference: retained (the caller releases it), or nil once its deinitialisation has begun.
    @inline(__always)
    final var weakObject: Unmanaged<AnyObject>? {
        unsafeDowncast(self, to: PortableBoundTarget.self).reference.map { Unmanaged.passRetained($0) }
    }
}

/// The record of a target of the portable property access: a weak reference, and an unowned
/// one that keeps the object's memory (see ``BoundTarget/keepsMemory``).
final class PortableBoundTarget: BoundTarget {
    /// The object: loading it retains the object, or gives nil once its deinitialisation has
    /// begun.
    private(set) weak var reference: AnyObject?
    /// The object's memory; never read (an unowned read of a dead object traps).
    private unowned let memory: AnyObject

    fileprivate init(_ object: AnyObject, id: UInt32) {
        (reference, memory) = (object, object)
        super.init(object, id: id)
    }

    override var liveAddress: UnsafeMutableRawPointer? { reference == nil ? nil : address }
}

/// The record of a target of the portable property access that reports the end of its life:
/// its ``TargetLifetime``, which its deinit ends. Until then the object is at ``address``.
final class LifetimeBoundTarget: BoundTarget {
    let lifetime: TargetLifetime

    fileprivate init(_ object: AnyObject, id: UInt32, _ lifetime: TargetLifetime) {
        self.lifetime = lifetime
        super.init(object, id: id, reportsLifetime: true, keepsMemory: false)
    }

    override var liveAddress: UnsafeMutableRawPointer? { lifetime.hasEnded ? nil : address }
}

/// An object that reports the end of its life, so that the portable property access can hold
/// it without a weak reference (which would give it a side table: see ``BoundTarget``). The
/// library's `View` is one.
///
/// The object makes its ``lifetime`` when first asked for, and ends it in its `deinit`; once
/// that has run, nothing may ask (only unsafe code can reach the object then, and in an
/// optimised build its storage may be gone before its stored properties' deinits run). Until
/// the `deinit` that ends it runs, a resolver treats the object as
/// alive, and writes to it — its storage is intact until every `deinit` body has run. Two
/// windows follow, where a weak reference and the direct access already see the object as
/// gone: while its subclasses' `deinit` bodies run (a class's `deinit` runs after theirs), and,
/// for an object whose `deinit` is isolated to an actor (`View`'s, to the main actor), from a
/// last release on another executor until that actor runs the `deinit`.
package protocol ReportsLifetime: AnyObject {
    /// The object's lifetime: the same instance every time, ended by the object's `deinit`.
    var lifetime: TargetLifetime { get }
}

/// Whether an object that reports its lifetime (``ReportsLifetime``) still lives: set once,
/// by the object's `deinit`, which runs on the main actor. Only a resolver used on the main
/// actor relies on it: there no `deinit` can run between its read and the write that follows,
/// wherever the object's last reference goes.
package final class TargetLifetime: @unchecked Sendable {
    /// Whether the object's `deinit` has run (read and written on the main actor only).
    @exclusivity(unchecked) package private(set) var hasEnded = false

    package init() {}

    /// Called by the object's `deinit`.
    package func end() { hasEnded = true }
}

// The gate (see PropertyAccess.selectStrategy).
#if os(Linux) && arch(x86_64) && canImport(Glibc) && !_runtime(_ObjC) && !STATEFULCONTROLS_PORTABLE_ONLY
    /// The record of a target of the direct property access: an unowned reference, which keeps
    /// the object's memory for its reference counts to be read.
    final class DirectBoundTarget: BoundTarget {
        /// The object's memory; never read (an unowned read of a dead object traps).
        private unowned let memory: AnyObject

        fileprivate init(_ object: AnyObject, id: UInt32, deinitOnMainActor: Bool) {
            memory = object
            super.init(object, id: id, reportsLifetime: deinitOnMainActor)
        }

        override var readsReferenceCounts: Bool { true }

        override var liveAddress: UnsafeMutableRawPointer? { isDeallocating(address) ? nil : address }
    }
#endif
