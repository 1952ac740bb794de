// How a binding's value reaches its property: the writer interface the apply loop calls, and
// the key path writer every property can use.

/// Writes a bound value to one property of one target: the value of a ``ValueBox`` (a rule's),
/// or the default value of a ``TypedBinding``.
///
/// The apply loop is not generic over targets and values: it hands a writer the source by
/// address, borrowed, and the target by address, borrowed (the direct access), or as the
/// reference its weak load made (the portable access). A writer copies the value before any
/// user code it calls (a setter, the old value's deinit) runs.
class AnyPropertyWriter {
    /// The key path written, as bound.
    final let keyPath: AnyKeyPath
    /// Set for a stored trivial value of 1, 2, 4 or 8 bytes, which the apply loop copies
    /// itself: no virtual call, no generic code (direct access only).
    final let trivialCopy: TrivialCopy?

    init(keyPath: AnyKeyPath, trivialCopy: TrivialCopy?) { (self.keyPath, self.trivialCopy) = (keyPath, trivialCopy) }

    /// Writes the value at `source` (borrowed) to the property of the live object at `target`.
    func write(_ target: UnsafeMutableRawPointer, _ source: ValueSource) {
        // A setter is user code: it gets the target retained, as any caller would hold it.
        write(retained: Unmanaged<AnyObject>.fromOpaque(target).takeUnretainedValue(), source)
    }

    /// Writes the value at `source` (borrowed) to the property of `target`, whose reference
    /// the writer takes over: the portable access's apply loop hands on the one its weak load
    /// made, which keeps the target alive through its setter.
    func write(retained target: consuming AnyObject, _ source: ValueSource) {
        internalInconsistency("\(Self.self) writes by address only")
    }
}

/// Where a value to write lies, borrowed: in a rule's ``ValueBox``, in the ``TypedBinding``
/// whose default it is, or — an inline value of the slab (see ``ValueSlab``) — at an address.
///
/// Usable from inlinable code: the caller's setter (see ``KeyPathAccessors``) reads the value
/// where its type is known, with no generic copy.
@usableFromInline
package struct ValueSource {
    /// What `object` is; the raw value indexes ``ValueOffsets``.
    @usableFromInline
    enum Kind: Int {
        case box, bindingDefault, inline
    }

    @usableFromInline let object: UnsafeRawPointer
    @usableFromInline let kind: Kind

    /// The value of the box at `address`.
    @inline(__always)
    init(boxAt address: UnsafeRawPointer) { (object, kind) = (address, .box) }

    /// The value of `box`, which the caller keeps alive.
    init(box: AnyValueBox) { self.init(boxAt: ValueSlab.address(of: box)) }

    /// The default value of `binding`, which the caller keeps alive.
    @inline(__always)
    init(defaultOf binding: Binding) {
        (object, kind) = (UnsafeRawPointer(Unmanaged.passUnretained(binding).toOpaque()), .bindingDefault)
    }

    /// The trivial value whose bytes lie at `address` (aligned to 8), which the caller keeps.
    @inline(__always)
    init(inlineAt address: UnsafeRawPointer) { (object, kind) = (address, .inline) }

    /// The value, of a writer's type `Value`.
    @inlinable @inline(__always)
    func value<Value>(as type: Value.Type) -> Value {
        switch kind {
        case .box: Unmanaged<ValueBox<Value>>.fromOpaque(object)._withUnsafeGuaranteedRef { $0.value }
        case .bindingDefault: Unmanaged<TypedBinding<Value>>.fromOpaque(object)._withUnsafeGuaranteedRef { $0.defaultValue }
        case .inline: object.load(as: Value.self)
        }
    }

    /// The value's address (the direct access), given where values of its type lie.
    @inline(__always)
    func address(_ offsets: ValueOffsets) -> UnsafeRawPointer { object + offsets[kind] }
}

/// Where a value of one type lies, in bytes from the object's address, in a ``ValueBox`` and
/// (as a default) in a ``TypedBinding`` (the direct access); an inline value at its address.
struct ValueOffsets {
    private let byKind: (box: Int, bindingDefault: Int, inline: Int)

    init(inBox: Int, inBinding: Int) { byKind = (inBox, inBinding, 0) }

    var inBox: Int { byKind.box }
    var inBinding: Int { byKind.bindingDefault }

    /// The offset for a source of `kind`.
    @inline(__always)
    subscript(kind: ValueSource.Kind) -> Int {
        withUnsafeBytes(of: byKind) { $0.load(fromByteOffset: kind.rawValue * MemoryLayout<Int>.stride, as: Int.self) }
    }
}

/// Writes through the key path: `target[keyPath: keyPath] = value`. The portable access's
/// writer where the caller's code made no setter of the key path bound, and the direct
/// access's for what it does not write itself (a path through another object, a subscript).
class KeyPathPropertyWriter<Target: AnyObject, Value>: AnyPropertyWriter {
    final let typedKeyPath: ReferenceWritableKeyPath<Target, Value>

    init(_ keyPath: ReferenceWritableKeyPath<Target, Value>) {
        typedKeyPath = keyPath
        super.init(keyPath: keyPath, trivialCopy: nil)
    }

    override func write(retained target: consuming AnyObject, _ source: ValueSource) {
        unsafeDowncast(target, to: Target.self)[keyPath: typedKeyPath] = source.value(as: Value.self)
    }
}

/// A property's accessors as the caller's code wrote them: a setter and a maker of the
/// property's binding (which reads its default) that go through the key path expression the
/// caller passed, and that expression itself.
///
/// The binding entry points take their key path as an autoclosure and make the accessors where
/// they are inlined, in the caller's code: there the key path is usually a literal, and the
/// optimiser turns `target[keyPath: \.title] = value` into the assignment `target.title = value`
/// (and the read into `target.title`) — no key path walk, no allocation. Plain Swift, so the
/// portable access writes with it. Where the expression is not a literal, the closures still
/// go through the key path.
@usableFromInline
package struct KeyPathAccessors<Target: AnyObject, Value> {
    /// Assigns through the key path expression the value at a source (borrowed) to `target`,
    /// which it takes over and which must be a `Target` (unchecked). The value is read here,
    /// where its type is known: no generic copy through value witnesses. The target is owned,
    /// because a closure borrowing its target retains it around the assignment (the old value's
    /// release may run user code); untyped, because a cast outside it copies the reference:
    /// each would be one more reference count operation per write.
    @usableFromInline package let set: (consuming AnyObject, ValueSource) -> Void
    /// Makes the binding of the property on `target`, whose default is read through the key
    /// path expression (where the binding's type is known).
    @usableFromInline package let makeBinding: (Target, BindingFields) -> Binding
    /// Evaluates the key path expression again.
    @usableFromInline package let keyPath: () -> ReferenceWritableKeyPath<Target, Value>

    @inlinable
    package init(_ keyPath: @escaping () -> ReferenceWritableKeyPath<Target, Value>) {
        self.set = { target, source in unsafeDowncast(target, to: Target.self)[keyPath: keyPath()] = source.value(as: Value.self) }
        self.makeBinding = { target, fields in TypedBinding(target[keyPath: keyPath()], fields) }
        self.keyPath = keyPath
    }

    /// Whether the accessors reach the property of `keyPath`: whether the expression gives that
    /// key path object (as a literal or a constant does every time).
    @inline(__always)  // a call would look up the metadata of KeyPathAccessors<Target, Value>
    func reaches(_ keyPath: ReferenceWritableKeyPath<Target, Value>) -> Bool { self.keyPath() === keyPath }
}

/// Writes through ``KeyPathAccessors``, while its expression still gives the key path bound.
///
/// An expression that gives another key path when evaluated again (a variable changed since,
/// a function making a new key path) would write another property than the one bound: the
/// writer checks at each write that the expression gives the bound key path (the same object),
/// and writes through the bound key path otherwise. A key path literal gives the same object
/// every time.
final class SetterPropertyWriter<Target: AnyObject, Value>: KeyPathPropertyWriter<Target, Value> {
    private let accessors: KeyPathAccessors<Target, Value>

    init(_ keyPath: ReferenceWritableKeyPath<Target, Value>, _ accessors: KeyPathAccessors<Target, Value>) {
        self.accessors = accessors
        super.init(keyPath)
    }

    override func write(retained target: consuming AnyObject, _ source: ValueSource) {
        guard accessors.reaches(typedKeyPath) else { return super.write(retained: target, source) }
        accessors.set(target, source)
    }
}

/// How to copy a trivial value of 1, 2, 4 or 8 bytes from its source into its property.
struct TrivialCopy {
    let size: Int
    /// Where the value lies in its source, and the property in the target object.
    let offsets: ValueOffsets, targetOffset: Int

    @inline(__always)
    func write(_ target: UnsafeMutableRawPointer, _ source: ValueSource) {
        // A value's alignment may be less than its size (two 32-bit fields): unaligned loads.
        let source = source.address(offsets)
        let destination = target + targetOffset
        switch size {
        case 1: destination.storeBytes(of: source.loadUnaligned(as: UInt8.self), as: UInt8.self)
        case 2: destination.storeBytes(of: source.loadUnaligned(as: UInt16.self), as: UInt16.self)
        case 4: destination.storeBytes(of: source.loadUnaligned(as: UInt32.self), as: UInt32.self)
        default: destination.storeBytes(of: source.loadUnaligned(as: UInt64.self), as: UInt64.self)
        }
    }
}
