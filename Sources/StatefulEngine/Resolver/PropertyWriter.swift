/// Writes a ``ValueBox`` to one key path of one target.
///
/// A key path write through the standard library costs about a thousand instructions and a heap
/// allocation (the projection is generic and keeps the root alive in a box). A bound value is
/// written on every state change that changes it, so the writer finds out, on its first write,
/// where the key path leads: that first write goes through the key path's own mutable
/// projection, and when the address it yields lies inside the target object, the property is
/// stored there without observers (the key path reaches the storage directly), and every later
/// write assigns at that address — what the property's setter does. Otherwise (a computed,
/// observed or overridable property, which the projection reaches through a temporary and its
/// setter) every write goes through the key path.
///
/// A direct write skips the dynamic exclusivity check the key path would make.
final class PropertyWriter<Target: AnyObject, Value>: AnyPropertyWriter {
    let keyPath: ReferenceWritableKeyPath<Target, Value>
    /// The property's offset in the target object; `unknown` before the first write,
    /// `throughKeyPath` when it is not stored inside the object.
    @exclusivity(unchecked) private(set) var offset = PropertyWriterOffset.unknown

    init(_ keyPath: ReferenceWritableKeyPath<Target, Value>) { self.keyPath = keyPath }

    override func write(_ object: AnyObject, _ box: AnyValueBox) {
        let target = unsafeDowncast(object, to: Target.self)
        let value = unsafeDowncast(box, to: ValueBox<Value>.self).value
        switch offset {
        case .stored(let offset):
            (UnsafeMutableRawPointer(Unmanaged.passUnretained(target).toOpaque()) + offset)
                .assumingMemoryBound(to: Value.self).pointee = value
        case .throughKeyPath:
            target[keyPath: keyPath] = value
        case .unknown:
            let start = UInt(bitPattern: Unmanaged.passUnretained(target).toOpaque())
            let end = start + instanceExtents(type(of: target)).positive
            withUnsafeMutablePointer(to: &target[keyPath: keyPath]) { pointer in
                pointer.pointee = value
                let address = UInt(bitPattern: pointer)
                offset = address >= start && address + UInt(MemoryLayout<Value>.size) <= end
                    ? .stored(Int(address - start)) : .throughKeyPath
            }
        }
    }
}

/// Where a ``PropertyWriter`` writes.
enum PropertyWriterOffset: Equatable {
    case unknown
    case throughKeyPath
    case stored(Int)
}

/// A ``PropertyWriter`` of any target and value type.
class AnyPropertyWriter {
    func write(_ object: AnyObject, _ box: AnyValueBox) { internalInconsistency("AnyPropertyWriter is abstract") }
}
