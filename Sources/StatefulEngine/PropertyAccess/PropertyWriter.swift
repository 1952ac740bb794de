// How a binding's value reaches its property: the writer interface the apply loop calls, and
// the key path writer every property can use.

/// Writes the value of a ``ValueBox`` to one property of one target.
///
/// The apply loop is not generic over targets and values: it hands a writer the target and
/// the box by address, borrowed. A writer copies the value before any user code it calls (a
/// setter, the old value's deinit) runs.
class AnyPropertyWriter {
    /// The key path written, as bound.
    final let keyPath: AnyKeyPath
    /// Set for a stored trivial value of 1, 2, 4 or 8 bytes, which the apply loop copies
    /// itself: no virtual call, no generic code (direct access only).
    final let trivialCopy: TrivialCopy?

    init(keyPath: AnyKeyPath, trivialCopy: TrivialCopy?) { (self.keyPath, self.trivialCopy) = (keyPath, trivialCopy) }

    /// Writes the value of the ``ValueBox`` at `box` (borrowed) to the property of the live
    /// object at `target`.
    func write(_ target: UnsafeMutableRawPointer, _ box: UnsafeRawPointer) { internalInconsistency("AnyPropertyWriter is abstract") }
}

/// Writes through the key path: `target[keyPath: keyPath] = value`. The portable access's
/// writer for every property, and the direct access's for what it does not write itself (a
/// path through another object, a subscript).
final class KeyPathPropertyWriter<Target: AnyObject, Value>: AnyPropertyWriter {
    private let typedKeyPath: ReferenceWritableKeyPath<Target, Value>

    init(_ keyPath: ReferenceWritableKeyPath<Target, Value>) {
        typedKeyPath = keyPath
        super.init(keyPath: keyPath, trivialCopy: nil)
    }

    override func write(_ target: UnsafeMutableRawPointer, _ box: UnsafeRawPointer) {
        let value = Unmanaged<ValueBox<Value>>.fromOpaque(box)._withUnsafeGuaranteedRef { $0.value }
        // A setter is user code: it gets the target retained, as any caller would hold it.
        Unmanaged<Target>.fromOpaque(target).takeUnretainedValue()[keyPath: typedKeyPath] = value
    }
}

/// How to copy a trivial value of 1, 2, 4 or 8 bytes from its ``ValueBox`` into its property.
struct TrivialCopy {
    let size: Int
    /// The value's offset in the box and the property's in the target object.
    let boxOffset: Int, targetOffset: Int

    @inline(__always)
    func write(_ target: UnsafeMutableRawPointer, _ box: UnsafeRawPointer) {
        let source = box + boxOffset
        let destination = target + targetOffset
        switch size {
        case 1: destination.storeBytes(of: source.load(as: UInt8.self), as: UInt8.self)
        case 2: destination.storeBytes(of: source.load(as: UInt16.self), as: UInt16.self)
        case 4: destination.storeBytes(of: source.load(as: UInt32.self), as: UInt32.self)
        default: destination.storeBytes(of: source.load(as: UInt64.self), as: UInt64.self)
        }
    }
}
