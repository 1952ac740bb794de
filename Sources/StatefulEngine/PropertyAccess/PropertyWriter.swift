// How a binding's value reaches its property: the writer interface the apply loop calls, and
// the key path writer every property can use.

/// Writes a bound value to one property of one target: the value of a ``ValueBox`` (a rule's),
/// or the default value of a ``TypedBinding``.
///
/// The apply loop is not generic over targets and values: it hands a writer the source by
/// address, borrowed, and the target by address, borrowed. A writer copies the value before any
/// user code it calls (a setter, the old value's deinit) runs.
class AnyPropertyWriter {
    /// The key path written, as bound.
    final let keyPath: AnyKeyPath
    /// Set for a stored trivial value of 1, 2, 4 or 8 bytes, which the apply loop copies
    /// itself: no virtual call, no generic code (direct access only).
    final let trivialCopy: TrivialCopy?
    /// What ``write(held:_:)`` calls: stored, so that the portable access's apply loop calls it
    /// without a virtual call.
    private final let set: (UnsafeMutableRawPointer, ValueSource) -> Void

    /// How the writer reaches its property, which says who may share it.
    enum Route {
        /// At the property's offset or through its accessor thunk (the direct access): the
        /// process's writer of the key path on the class (see ``KeyPathCatalog``).
        case layout
        /// Through the binding caller's setter (see ``KeyPathAccessors``): its resolver's only,
        /// as the check that the setter reaches the property is that caller's.
        case callersSetter
        /// Through the key path, walked at every write: the process's, until a caller's setter
        /// that reaches the property replaces it in that caller's resolver.
        case keyPath
    }

    final let route: Route

    /// A writer by address only (the direct access's), or one that writes with `set`.
    init(
        keyPath: AnyKeyPath, trivialCopy: TrivialCopy?, route: Route = .layout,
        set: @escaping (UnsafeMutableRawPointer, ValueSource) -> Void = { _, _ in internalInconsistency("a writer by address") }
    ) {
        (self.keyPath, self.trivialCopy, self.route, self.set) = (keyPath, trivialCopy, route, set)
    }

    /// Writes the value at `source` (borrowed) to the property of the live object at `target`.
    func write(_ target: UnsafeMutableRawPointer, _ source: ValueSource) {
        // A setter is user code: it runs with the target retained, as any caller would hold it.
        let object = Unmanaged<AnyObject>.fromOpaque(target).retain()
        set(target, source)
        object.release()
    }

    /// Writes the value at `source` (borrowed) to the property of the object at `target`, which
    /// the caller keeps alive until the write returns (a setter is user code, and may let go of
    /// every other reference to it).
    @inline(__always)
    final func write(held target: UnsafeMutableRawPointer, _ source: ValueSource) { set(target, source) }
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
final class KeyPathPropertyWriter<Target: AnyObject, Value>: AnyPropertyWriter {
    /// Writes through `keyPath`.
    init(_ keyPath: ReferenceWritableKeyPath<Target, Value>) {
        super.init(keyPath: keyPath, trivialCopy: nil, route: .keyPath, set: KeyPathAccessors.assignment(through: keyPath))
    }
}

/// A property's accessors as the caller's code wrote them: a setter and a maker of the
/// property's binding (which reads its default), each made with the key path the caller's
/// expression gave.
///
/// The binding entry points take their key path as an autoclosure and make the accessors where
/// they are inlined, in the caller's code. There the key path is usually a literal, and each
/// closure captures its own evaluation of it: a literal captured by one closure is a constant
/// the optimiser propagates into the closure (as it does for `map(\.title)`), and it turns
/// `target[keyPath: \.title] = value` into the assignment `target.title = value` (and the read
/// into `target.title`) — no key path walk, no allocation. A key path object used by anything
/// else (a second closure, a comparison) stays a value, and the projection a runtime walk: hence
/// one evaluation per closure. Plain Swift, so the portable access writes with them. Where the
/// expression is not a literal, the closures hold the key path it gave and go through it.
@usableFromInline
package struct KeyPathAccessors<Target: AnyObject, Value> {
    /// Assigns the value at a source (borrowed) to the object at an address, which must be a
    /// `Target` (unchecked) and which the caller keeps alive. The value is read here, where its
    /// type is known: no generic copy through value witnesses. The target comes by address and
    /// is used as a guaranteed reference: a closure taking the object itself retains it around
    /// the assignment, and a cast outside it copies the reference — one more reference count
    /// operation per write either way.
    @usableFromInline package let set: (UnsafeMutableRawPointer, ValueSource) -> Void
    /// Makes the binding of the property on `target`, whose default it reads (where the
    /// binding's type is known).
    @usableFromInline package let makeBinding: (Target, BindingFields) -> Binding
    /// What the expression gave when evaluated after the closures had captured theirs.
    @usableFromInline package let keyPath: ReferenceWritableKeyPath<Target, Value>

    /// Evaluates `keyPath` three times: once for each closure, then once to check them.
    @inlinable
    package init(_ keyPath: () -> ReferenceWritableKeyPath<Target, Value>) {
        self.set = Self.assignment(through: keyPath())
        let read = keyPath()
        self.makeBinding = { target, fields in TypedBinding(target[keyPath: read], fields) }
        self.keyPath = keyPath()
    }

    /// `target[keyPath: keyPath] = value`, for a target by address (held by the caller,
    /// unchecked) and the value at a source: the write of every writer that is not the direct
    /// access's.
    @inlinable
    static func assignment(
        through keyPath: ReferenceWritableKeyPath<Target, Value>
    ) -> (UnsafeMutableRawPointer, ValueSource) -> Void {
        { target, source in
            Unmanaged<Target>.fromOpaque(target)._withUnsafeGuaranteedRef { $0[keyPath: keyPath] = source.value(as: Value.self) }
        }
    }

    /// Whether the accessors reach the property of `keyPath`, the expression's evaluation before
    /// theirs: whether the expression gave that key path object again after them, as a literal or
    /// a constant does every time.
    ///
    /// An expression whose evaluations differ (a function making a new key path each time, one
    /// that reads something its own evaluation changes) fails this and is written through the
    /// key path bound. Only an expression that changes what it reads, and gives the bound key
    /// path again after giving another, could pass it with closures that reach another property.
    @inline(__always)  // a call would look up the metadata of KeyPathAccessors<Target, Value>
    func reaches(_ keyPath: ReferenceWritableKeyPath<Target, Value>) -> Bool { self.keyPath === keyPath }
}

/// Writes through ``KeyPathAccessors``: the caller's assignment, the key path checked once, when
/// bound (see ``KeyPathAccessors/reaches(_:)``).
final class SetterPropertyWriter<Target: AnyObject, Value>: AnyPropertyWriter {
    init(_ keyPath: ReferenceWritableKeyPath<Target, Value>, _ accessors: KeyPathAccessors<Target, Value>) {
        super.init(keyPath: keyPath, trivialCopy: nil, route: .callersSetter, set: accessors.set)
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
