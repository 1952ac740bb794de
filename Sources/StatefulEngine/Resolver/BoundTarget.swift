// A resolver's record of one bound target: its id, its object, and whether it still lives.

/// A bound target (its bindings are the ``BindingStore``'s, by its id).
///
/// The target is not kept alive. With the portable property access the record holds a weak
/// reference. With the direct access it holds an unowned reference, which keeps only the
/// object's memory (its header, not its properties) until the record goes, and reads from the
/// object's reference counts whether it is being deinitialised: what a weak reference answers,
/// without the side table a weak reference gives the object — which would send every retain
/// and release of the target, anywhere in the program, down the runtime's slow path.
final class BoundTarget {
    /// The object's address, while the record is registered: the unowned reference of the
    /// direct access keeps the memory there. Also its identity, which a new object may take
    /// once this one is freed.
    let address: UnsafeMutableRawPointer
    /// The object, for the portable access (nil with the direct access): loading it retains
    /// the object, or gives nil once its deinitialisation has begun.
    private(set) weak var weakObject: AnyObject?
    // The gate (see PropertyAccess.selectStrategy).
    #if os(Linux) && (arch(x86_64) || arch(arm64)) && !_runtime(_ObjC) && !_ptrauth(_arm64e) && !STATEFULCONTROLS_PORTABLE_ONLY
        /// The object's memory, for the direct access (nil with the portable access); never read
        /// (an unowned read of a dead object traps).
        private unowned let memory: AnyObject?
    #endif
    /// The record's place in the resolver's sweep list; unchecked, as the resolver's parts are
    /// (see StateResolver): no access lasts across user code.
    @exclusivity(unchecked) var sweepIndex = 0
    let id: UInt32
    /// Whether liveness is read from the object's reference counts (the direct access), else
    /// from ``weakObject``.
    let readsReferenceCounts: Bool

    init(_ object: AnyObject, id: UInt32, access: PropertyAccess) {
        address = Unmanaged.passUnretained(object).toOpaque()
        #if os(Linux) && (arch(x86_64) || arch(arm64)) && !_runtime(_ObjC) && !_ptrauth(_arm64e) && !STATEFULCONTROLS_PORTABLE_ONLY
            memory = access == .direct ? object : nil
        #endif
        readsReferenceCounts = access == .direct
        if access == .portable { weakObject = object }
        self.id = id
    }

    /// The object while it lives; nil once its deinitialisation has begun.
    var object: AnyObject? {
        liveAddress.map { Unmanaged<AnyObject>.fromOpaque($0).takeUnretainedValue() }
    }

    /// The object's address while it lives; nil once its deinitialisation has begun.
    @inline(__always)
    var liveAddress: UnsafeMutableRawPointer? {
        readsReferenceCounts ? liveAddressByReferenceCounts : weakObject == nil ? nil : address
    }

    /// ``liveAddress`` with the direct access (``readsReferenceCounts``), which the apply loop
    /// has checked already.
    @inline(__always)
    var liveAddressByReferenceCounts: UnsafeMutableRawPointer? { Self.liveAddressByReferenceCounts(address) }

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
