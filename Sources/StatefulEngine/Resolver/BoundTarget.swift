// A resolver's record of one bound target: its id, its object, and whether it still lives.

/// A bound target (its bindings are the ``BindingStore``'s, by its id).
///
/// The target is not kept alive. With the portable property access the record holds a weak
/// reference (a ``PortableBoundTarget``). With the direct access it holds an unowned reference
/// (a `DirectBoundTarget`), which keeps only the object's memory (its header, not its
/// properties) until the record goes, and reads from the object's reference counts whether it
/// is being deinitialised: what a weak reference answers, without the side table a weak
/// reference gives the object — which would send every retain and release of the target,
/// anywhere in the program, down the runtime's slow path. One subclass for each, so that a
/// record is 40 bytes (48 with both references: a size class of the allocator more).
class BoundTarget {
    /// The object's address, while the record is registered: the unowned reference of the
    /// direct access keeps the memory there. Also its identity, which a new object may take
    /// once this one is freed.
    final let address: UnsafeMutableRawPointer
    final let id: UInt32

    fileprivate init(_ object: AnyObject, id: UInt32) {
        (address, self.id) = (Unmanaged.passUnretained(object).toOpaque(), id)
    }

    /// The record of `object` for the property access `access`.
    static func make(_ object: AnyObject, id: UInt32, access: PropertyAccess) -> BoundTarget {
        // The gate (see PropertyAccess.selectStrategy).
        #if os(Linux) && (arch(x86_64) || arch(arm64)) && !_runtime(_ObjC) && !_ptrauth(_arm64e) && !STATEFULCONTROLS_PORTABLE_ONLY
            if access == .direct { return DirectBoundTarget(object, id: id) }
        #endif
        return PortableBoundTarget(object, id: id)
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

    /// The object loaded from the weak reference of a ``PortableBoundTarget`` — which every
    /// record of a resolver whose targets do not read reference counts is (see
    /// ``TargetRegistry``): retained, or nil once its deinitialisation has begun.
    @inline(__always)
    final var weakObject: AnyObject? { unsafeDowncast(self, to: PortableBoundTarget.self).reference }

    /// ``liveAddress`` with the direct access (``readsReferenceCounts``), which the apply loop
    /// has checked already.
    @inline(__always)
    final var liveAddressByReferenceCounts: UnsafeMutableRawPointer? { Self.liveAddressByReferenceCounts(address) }

    /// `address` while the object there lives, read from its reference counts (the direct
    /// access): for a record's address, which keeps the object's memory.
    @inline(__always)
    static func liveAddressByReferenceCounts(_ address: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? {
        #if os(Linux) && (arch(x86_64) || arch(arm64)) && !_runtime(_ObjC) && !_ptrauth(_arm64e) && !STATEFULCONTROLS_PORTABLE_ONLY
            return isDeallocating(address) ? nil : address
        #else
            internalInconsistency("BoundTarget: reference counts read where the direct access is not compiled")
        #endif
    }
}

/// The record of a target of the portable property access: a weak reference.
final class PortableBoundTarget: BoundTarget {
    /// The object: loading it retains the object, or gives nil once its deinitialisation has
    /// begun.
    private(set) weak var reference: AnyObject?

    override fileprivate init(_ object: AnyObject, id: UInt32) {
        reference = object
        super.init(object, id: id)
    }

    override var liveAddress: UnsafeMutableRawPointer? { reference == nil ? nil : address }
}

// The gate (see PropertyAccess.selectStrategy).
#if os(Linux) && (arch(x86_64) || arch(arm64)) && !_runtime(_ObjC) && !_ptrauth(_arm64e) && !STATEFULCONTROLS_PORTABLE_ONLY
    /// The record of a target of the direct property access: an unowned reference, which keeps
    /// the object's memory for its reference counts to be read.
    final class DirectBoundTarget: BoundTarget {
        /// The object's memory; never read (an unowned read of a dead object traps).
        private unowned let memory: AnyObject

        override fileprivate init(_ object: AnyObject, id: UInt32) {
            memory = object
            super.init(object, id: id)
        }

        override var readsReferenceCounts: Bool { true }

        override var liveAddress: UnsafeMutableRawPointer? { liveAddressByReferenceCounts }
    }
#endif
