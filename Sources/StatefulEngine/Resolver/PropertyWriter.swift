internal import CSwiftRuntime

/// Writes a ``ValueBox`` to one key path of one target.
///
/// A key path write through the standard library costs about a thousand instructions and a heap
/// allocation (the projection is generic and keeps the root alive in a box). A bound value is
/// written on every state change that changes it, so the writer reads, once, where the key
/// path leads (its components, see ``KeyPathComponent``):
/// - a stored property of the target, or of a struct stored in it, without observers (the key
///   path reaches the storage directly): assigned at its offset — what the setter does;
/// - a settable computed property of the target (computed, observed with `didSet`, or
///   overridable, which key paths reach through accessors): its setter, called as the key
///   path calls it;
/// - anything else (a path through another object, a subscript): the key path.
///
/// A direct write skips the dynamic exclusivity check the key path would make. The writer runs
/// unspecialised (the resolver is not generic over the value), so a stored value of a trivial
/// type of 1, 2, 4 or 8 bytes (`Bool`, `Int`, `Double`, an enum without payloads…) is copied
/// as bytes, which costs none of the value witness calls a generic copy makes.
///
/// The value is read in place from its box, which the caller borrows: the stored path copies it
/// before the old value's release (user code) runs, and a setter thunk copies it before calling
/// the setter.
final class PropertyWriter<Target: AnyObject, Value>: AnyPropertyWriter {
    let keyPath: ReferenceWritableKeyPath<Target, Value>
    let access: PropertyAccess

    /// The writer of `keyPath` on targets of class `targetClass` (a subclass of `Target`);
    /// `box` is any box of the values it writes.
    init(_ keyPath: ReferenceWritableKeyPath<Target, Value>, targetClass: AnyClass, box: ValueBox<Value>) {
        self.keyPath = keyPath
        self.access = PropertyAccess(keyPath, valueSize: MemoryLayout<Value>.size,
                                     instanceSize: Int(instanceExtents(targetClass).positive))
        let size = MemoryLayout<Value>.size
        if case .stored(let offset) = access, _isPOD(Value.self), [1, 2, 4, 8].contains(size) {
            super.init(boxOffset: box.valueOffset,
                       trivialCopy: TrivialCopy(size: size, boxOffset: box.valueOffset, targetOffset: offset))
        } else {
            super.init(boxOffset: box.valueOffset, trivialCopy: nil)
        }
    }

    override var anyKeyPath: AnyKeyPath { keyPath }

    /// A key path setter thunk: the new value and the root by address (maximally abstracted),
    /// then the key path's argument block and its size.
    private typealias Setter = @convention(thin) (UnsafeRawPointer, UnsafeRawPointer, UnsafeRawPointer, Int) -> Void

    override func write(_ address: UnsafeMutableRawPointer, _ box: UnsafeRawPointer) {
        if let trivialCopy { return trivialCopy.write(address, box) }
        let value = (box + boxOffset).assumingMemoryBound(to: Value.self)
        if case .stored(let offset) = access {
            // One assignment: the new value copied in, then the old one released (its deinit,
            // user code, runs last).
            (address + offset).assumingMemoryBound(to: Value.self).pointee = value.pointee
            return
        }
        // A setter is user code: it gets the target retained, as any caller would hold it.
        let target = Unmanaged<Target>.fromOpaque(address).takeUnretainedValue()
        switch access {
        case .setter(let function, let accessors):
            withUnsafePointer(to: target) { target in
                unsafeBitCast(function, to: Setter.self)(value, target, accessors, 0)
            }
        case .stored, .throughKeyPath:
            target[keyPath: keyPath] = value.pointee
        }
        withExtendedLifetime(keyPath) {}  // the setter's accessor block lives in it
    }
}

/// How a ``PropertyWriter`` writes.
enum PropertyAccess: Equatable {
    /// At this offset in the target object.
    case stored(Int)
    /// Through a computed property's setter thunk (see ``KeyPathComponent/accessors``).
    case setter(UnsafeRawPointer, accessors: UnsafeRawPointer)
    case throughKeyPath

    /// How to write `keyPath` on an object of `instanceSize` bytes.
    init(_ keyPath: AnyKeyPath, valueSize: Int, instanceSize: Int) {
        self = .throughKeyPath
        guard let components = KeyPathComponent.components(of: keyPath), let first = components.first else { return }
        if components.count == 1, let accessors = first.accessors {
            if let setter = accessors.setter { self = .setter(setter, accessors: accessors.block) }
            return
        }
        if let offset = storedOffset(components, valueSize: valueSize, instanceSize: instanceSize) { self = .stored(offset) }
    }
}

/// The offset of the property `components` lead to inside an object of `instanceSize` bytes,
/// if they are stored properties of it (and of structs stored in it); nil otherwise.
func storedOffset(_ components: [KeyPathComponent], valueSize: Int, instanceSize: Int) -> Int? {
    guard components.first?.kind == .classStored, components.dropFirst().allSatisfy({ $0.kind == .structStored })
    else { return nil }
    let offset = components.reduce(0) { $0 + Int($1.identifier) }
    return offset >= MemoryLayout<Int>.size * 2 && offset + valueSize <= instanceSize ? offset : nil
}

/// Reads a `Bool` key path of objects of one class, as ``PropertyWriter`` writes: a stored
/// property at its offset, a computed one through its getter thunk, anything else through the
/// key path. For the controls module's custom states, whose predicates read a factor on every
/// state evaluation; not generic over the value, so that reading costs no metadata lookup.
package struct BoolPropertyReader {
    private enum Access {
        case stored(Int)
        case getter(UnsafeRawPointer, block: UnsafeRawPointer)
        case throughKeyPath((AnyObject) -> Bool)
    }

    private let keyPath: AnyKeyPath
    private let access: Access

    /// The reader of `keyPath` on objects of class `rootClass` (a subclass of `Root`).
    package init<Root: AnyObject>(_ keyPath: KeyPath<Root, Bool>, rootClass: AnyClass) {
        self.keyPath = keyPath
        let components = KeyPathComponent.components(of: keyPath) ?? []
        if components.count == 1, let accessors = components[0].accessors {
            access = .getter(accessors.getter, block: accessors.block)
        } else if let offset = storedOffset(components, valueSize: MemoryLayout<Bool>.size,
                                            instanceSize: Int(instanceExtents(rootClass).positive)) {
            access = .stored(offset)
        } else {
            access = .throughKeyPath { unsafeDowncast($0, to: Root.self)[keyPath: keyPath] }
        }
    }

    /// The property's value in `root`, an object of the reader's class.
    package func read(_ root: AnyObject) -> Bool {
        switch access {
        case .stored(let offset):
            return (UnsafeRawPointer(Unmanaged.passUnretained(root).toOpaque()) + offset).load(as: Bool.self)
        case .getter(let getter, let block):
            var result = false
            withUnsafeMutablePointer(to: &result) { result in
                withUnsafePointer(to: root) { swiftrt_call_key_path_getter(getter, result, $0, block) }
            }
            withExtendedLifetime(keyPath) {}  // the getter's accessor block lives in it
            return result
        case .throughKeyPath(let read):
            return read(root)
        }
    }
}

/// A ``PropertyWriter`` of any target and value type.
class AnyPropertyWriter {
    /// Where the value lies in its ``ValueBox``.
    final let boxOffset: Int
    /// Set for a stored trivial value of 1, 2, 4 or 8 bytes, which the apply loop copies
    /// itself: no virtual call, no generic code.
    final let trivialCopy: TrivialCopy?

    init(boxOffset: Int, trivialCopy: TrivialCopy?) { (self.boxOffset, self.trivialCopy) = (boxOffset, trivialCopy) }

    /// Writes the value of the ``ValueBox`` at `box` (borrowed) to the property of the live
    /// object at `address`.
    func write(_ address: UnsafeMutableRawPointer, _ box: UnsafeRawPointer) { internalInconsistency("AnyPropertyWriter is abstract") }

    /// The key path written, as bound.
    var anyKeyPath: AnyKeyPath { internalInconsistency("AnyPropertyWriter is abstract") }
}

/// How to copy a trivial value of 1, 2, 4 or 8 bytes from its ``ValueBox`` into its property.
struct TrivialCopy {
    let size: Int
    /// The value's offset in the box and the property's in the target object.
    let boxOffset: Int, targetOffset: Int

    @inline(__always)
    func write(_ address: UnsafeMutableRawPointer, _ box: UnsafeRawPointer) {
        let source = box + boxOffset
        let destination = address + targetOffset
        switch size {
        case 1: destination.storeBytes(of: source.load(as: UInt8.self), as: UInt8.self)
        case 2: destination.storeBytes(of: source.load(as: UInt16.self), as: UInt16.self)
        case 4: destination.storeBytes(of: source.load(as: UInt32.self), as: UInt32.self)
        default: destination.storeBytes(of: source.load(as: UInt64.self), as: UInt64.self)
        }
    }
}
