internal import CSwiftRuntime

/// The size of a class's instances (the positive extent from the object's address), from the
/// Swift runtime: the bound that tells a stored property's address from a temporary's (see
/// ``PropertyWriter``). The standard library declares this runtime function the same way (for
/// `ManagedBuffer`); it is a Swift-convention function, so it is declared here rather than in
/// C like `swift_isDeallocating` (CSwiftRuntime).
@_silgen_name("_swift_getSwiftClassInstanceExtents")
func instanceExtents(_ theClass: AnyClass) -> (negative: UInt, positive: UInt)

/// Whether the object at `address` is being (or has been) deinitialised; its memory must still
/// be allocated (see ``BoundTarget``).
@inline(__always)
func isDeallocating(_ address: UnsafeMutableRawPointer) -> Bool { swiftrt_is_deallocating(address) }
