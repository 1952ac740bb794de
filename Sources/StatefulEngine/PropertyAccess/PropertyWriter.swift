// How a binding's value reaches its property: the writer interface the apply loop calls, and
// the caller's accessor (one closure over one evaluation of the key path) every property can use.

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
    /// Whether the writer has a ``trivialCopy``, so runs no user code: one byte for the apply
    /// loop to test where a liveness check may do instead of a reference.
    final let copiesTrivially: Bool
    /// Set for any other stored value, which the apply loop assigns through its type's value
    /// witness: no virtual call (direct access only).
    final let inPlaceAssignment: InPlaceAssignment?
    /// Where the class stored property written lies in the target (a struct's field is
    /// accessed through the property that holds the struct), for the exclusivity check the
    /// resolver makes before a direct write in place, as an assignment makes it; nil for a
    /// writer that calls a setter or assigns (they check for themselves).
    final let accessOffset: Int?
    /// What ``write(held:_:)`` calls (its ``KeyPathOperation/write``): stored, so that the
    /// portable access's apply loop calls it without a virtual call.
    private final let access: PropertyAccessor

    /// How the writer reaches its property, which says who may share it.
    enum Route {
        /// At the property's offset or through its accessor thunk (the direct access): the
        /// process's writer of the key path on the class (see ``KeyPathCatalog``).
        case layout
        /// Through the binding caller's accessor (see ``KeyPathAccessors``): its resolver's
        /// only, as the accessor casts its target to the caller's root type unchecked.
        case callersSetter
    }

    final let route: Route

    /// A writer by address only (the direct access's), or one that writes with `access`.
    init(
        keyPath: AnyKeyPath, trivialCopy: TrivialCopy?, inPlaceAssignment: InPlaceAssignment? = nil, accessOffset: Int? = nil,
        route: Route = .layout, access: @escaping PropertyAccessor = { _, _, _ in internalInconsistency("a writer by address") }
    ) {
        (self.keyPath, self.trivialCopy, self.accessOffset, self.route, self.access) = (keyPath, trivialCopy, accessOffset, route, access)
        (copiesTrivially, self.inPlaceAssignment) = (trivialCopy != nil, inPlaceAssignment)
    }

    /// With the direct access, stops the program with Swift's message if the class stored
    /// property at ``accessOffset`` in the object at `target` is in an access (see
    /// ``accessesInProgress``).
    @inline(__always)
    final func checkAccess(_ target: UnsafeMutableRawPointer) {
        guard let accessOffset else { return }
        checkModifyAccess(target + accessOffset)
    }

    /// Whether this thread has an access in progress that Swift tracks (the direct access; see
    /// `swiftrt_accesses_in_progress`). Until code that could begin one runs and returns with it
    /// open — which Swift's scoped accesses never do — writes need no ``checkAccess(_:)``.
    static var accessesInProgress: Bool { StatefulEngine.accessesInProgress() }

    /// Writes the value at `source` (borrowed) to the property of the object whose address lies
    /// at `target`, which the caller keeps alive until the write returns (the direct access's
    /// writers override it: a key path's setter thunk takes its target so).
    func write(_ target: UnsafePointer<UnsafeMutableRawPointer>, _ source: ValueSource) { _ = access(.write, target.pointee, source) }

    /// ``write(_:_:)`` as the direct access's apply loop makes it: a stored value written here —
    /// a trivial one's bytes copied, which runs no user code, any other assigned through its
    /// type's value witness — with no virtual call; a property with a setter through
    /// ``write(_:_:)``.
    @inline(__always)
    final func writeInline(_ target: BoundTarget, _ source: ValueSource) {
        if let trivialCopy {
            trivialCopy.write(target.address, source)
        } else if let inPlaceAssignment {
            inPlaceAssignment.write(target.address, source)
        } else {
            write(target.addressLocation, source)
        }
    }

    /// Writes the value at `source` (borrowed) to the property of the object at `target`, which
    /// the caller keeps alive until the write returns (a setter is user code, and may let go of
    /// every other reference to it).
    @inline(__always)
    final func write(held target: UnsafeMutableRawPointer, _ source: ValueSource) { _ = access(.write, target, source) }
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

    /// The fields of a binding to make (see ``KeyPathOperation/makeBinding``), which the caller
    /// keeps alive.
    init(fieldsAt address: UnsafePointer<BindingFields>) { (object, kind) = (UnsafeRawPointer(address), .inline) }

    /// The fields a ``KeyPathOperation/makeBinding`` source points at.
    @inlinable @inline(__always)
    var fields: BindingFields { object.load(as: BindingFields.self) }

    /// The value, of a writer's type `Value`.
    @inlinable @inline(__always)
    func value<Value>(as type: Value.Type) -> Value {
        switch kind {
        case .box: Unmanaged<ValueBox<Value>>.fromOpaque(object)._withUnsafeGuaranteedRef { $0.value }
        case .bindingDefault: Unmanaged<TypedBinding<Value>>.fromOpaque(object)._withUnsafeGuaranteedRef { $0.defaultValue }
        case .inline: object.load(as: Value.self)
        }
    }

    /// The value's address (the direct access), given where values of its type lie: a table
    /// indexed by kind (``ValueOffsets/table(inBox:inBinding:)``), read in place.
    @inline(__always)
    func address(in table: UnsafePointer<Int>) -> UnsafeRawPointer { object + table[kind.rawValue] }
}

/// Where a value of one type lies, in bytes from the object's address, in a ``ValueBox`` and
/// (as a default) in a ``TypedBinding`` (the direct access); an inline value at its address.
enum ValueOffsets {
    /// The offsets in a box and in a binding as a table indexed by a ``ValueSource/Kind``'s raw
    /// value, for the apply loop to read in place (an indexed value would be copied to the
    /// stack, and the compiler would then guard the caller's frame): one table for each pair
    /// met (a few: they vary with a value's alignment), kept for the process.
    static func table(inBox: Int, inBinding: Int) -> UnsafePointer<Int> {
        tables.withLock { made in
            if let found = made.first(where: { $0.inBox == inBox && $0.inBinding == inBinding }) { return found.table }
            let table = UnsafeMutablePointer<Int>.allocate(capacity: 3)
            table[ValueSource.Kind.box.rawValue] = inBox
            table[ValueSource.Kind.bindingDefault.rawValue] = inBinding
            table[ValueSource.Kind.inline.rawValue] = 0
            made.append((inBox, inBinding, UnsafePointer(table)))
            return UnsafePointer(table)
        }
    }

    private static let tables = Locked<[(inBox: Int, inBinding: Int, table: UnsafePointer<Int>)]>([])
}

/// What a ``PropertyAccessor`` is asked to do.
@usableFromInline
package enum KeyPathOperation {
    /// Assign the value at the source (borrowed) to the property of the target, which the
    /// caller keeps alive; returns nil.
    case write
    /// Return a new ``TypedBinding`` of the property on the target, whose default it reads,
    /// with the fields the source points at (``ValueSource/init(fieldsAt:)``).
    case makeBinding
    /// Return the key path the accessor goes through; the target and source are not read.
    case keyPath
}

/// One key path's accessors, as one closure over one evaluation of the key path: see
/// ``KeyPathAccessors``. The target comes by address, a `Target` (unchecked). A key path that is
/// not a literal is walked by the standard library at each operation.
@usableFromInline
package typealias PropertyAccessor = (KeyPathOperation, UnsafeMutableRawPointer, ValueSource) -> AnyObject?

/// A property's accessors as the caller's code wrote them: the key path expression evaluated
/// once, and captured by one closure that writes the property, makes its binding (which reads
/// its default) and gives the key path back.
///
/// The binding entry points take their key path as an autoclosure and make the accessors where
/// they are inlined, in the caller's code. There the key path is usually a literal, captured
/// once by the one closure: the optimiser then specialises the closure for that constant (as it
/// does for `map(\.title)`), and turns `target[keyPath: \.title] = value` into the assignment
/// `target.title = value` (and the read into `target.title`) — no key path walk, no allocation.
/// It does so only for a key path object captured by one closure and used by nothing else, not
/// even by a call of the closure inlined beside it: hence one closure for the three operations,
/// called only by the engine, and the key path bound is the one the closure gives back
/// (``KeyPathOperation/keyPath``). The property written is therefore always the one bound,
/// whatever the expression. Plain Swift, so the portable access writes with it. Where the
/// expression is not a literal, the closure holds the key path it gave and goes through it.
@usableFromInline
package struct KeyPathAccessors<Target: AnyObject, Value> {
    /// The closure (see ``PropertyAccessor``).
    @usableFromInline package let access: PropertyAccessor

    /// Evaluates `keyPath` once.
    @inlinable
    package init(_ keyPath: () -> ReferenceWritableKeyPath<Target, Value>) { access = Self.accessor(through: keyPath()) }

    /// The key path the closure goes through: the expression's one evaluation.
    package var keyPath: ReferenceWritableKeyPath<Target, Value> {
        var unused = 0
        let given = withUnsafeMutablePointer(to: &unused) { access(.keyPath, UnsafeMutableRawPointer($0), ValueSource(inlineAt: $0)) }
        return unsafeDowncast(given.unsafelyUnwrapped, to: ReferenceWritableKeyPath<Target, Value>.self)
    }

    /// Makes the binding of the property on `target`, which reads its default (the closure
    /// makes it: its generic metadata is known there without a lookup).
    package func makeBinding(_ target: Target, _ fields: BindingFields) -> Binding {
        withUnsafePointer(to: fields) { fields in
            unsafeDowncast(
                access(.makeBinding, Unmanaged.passUnretained(target).toOpaque(), ValueSource(fieldsAt: fields)).unsafelyUnwrapped,
                to: Binding.self)
        }
    }

    /// The accessor of `keyPath` (see ``KeyPathOperation``): the value is read from its source
    /// where its type is known, with no generic copy; the target is used as a guaranteed
    /// reference (a closure taking the object itself would retain it around the assignment).
    @inlinable
    static func accessor(through keyPath: ReferenceWritableKeyPath<Target, Value>) -> PropertyAccessor {
        { operation, target, source in
            switch operation {
            case .write:
                Unmanaged<Target>.fromOpaque(target)._withUnsafeGuaranteedRef { $0[keyPath: keyPath] = source.value(as: Value.self) }
                return nil
            case .makeBinding:
                return TypedBinding(Unmanaged<Target>.fromOpaque(target)._withUnsafeGuaranteedRef { $0[keyPath: keyPath] }, source.fields)
            case .keyPath:
                return keyPath
            }
        }
    }
}

/// Writes through ``KeyPathAccessors``: the caller's assignment.
final class SetterPropertyWriter<Target: AnyObject, Value>: AnyPropertyWriter {
    init(_ accessors: KeyPathAccessors<Target, Value>) {
        super.init(keyPath: accessors.keyPath, trivialCopy: nil, route: .callersSetter, access: accessors.access)
    }
}

/// Where a stored property lies in its target, and the value to assign to it in its source
/// (the direct access's writes in place: ``TrivialCopy``, ``InPlaceAssignment``).
struct StoredLocation {
    /// Where the value lies in each kind of source (``ValueOffsets/table(inBox:inBinding:)``).
    let offsets: UnsafePointer<Int>
    /// Where the property lies in the target object.
    let targetOffset: Int

    /// The property's address in the object at `target`, and the value's at `source`.
    @inline(__always)
    func addresses(_ target: UnsafeMutableRawPointer, _ source: ValueSource) -> (UnsafeMutableRawPointer, UnsafeRawPointer) {
        (target + targetOffset, source.address(in: offsets))
    }
}

/// How to copy a trivial value of 1, 2, 4 or 8 bytes from its source into its property.
struct TrivialCopy {
    let location: StoredLocation
    let size: Int

    @inline(__always)
    func write(_ target: UnsafeMutableRawPointer, _ source: ValueSource) {
        write(target, bits: bits(at: source.address(in: location.offsets)))
    }

    /// Stores the value whose bytes are the low `size` bytes of `bits` (as an inline value of
    /// the slab holds them: see ``ValueSlab``).
    @inline(__always)
    func write(_ target: UnsafeMutableRawPointer, bits: UInt64) {
        let destination = target + location.targetOffset
        if _fastPath(size == 8) { return destination.storeBytes(of: bits, as: UInt64.self) }
        switch size {
        case 1: destination.storeBytes(of: UInt8(truncatingIfNeeded: bits), as: UInt8.self)
        case 4: destination.storeBytes(of: UInt32(truncatingIfNeeded: bits), as: UInt32.self)
        default: destination.storeBytes(of: UInt16(truncatingIfNeeded: bits), as: UInt16.self)
        }
    }

    /// The value at `source` as the low bytes of a word. A value's alignment may be less than
    /// its size (two 32-bit fields): unaligned loads, of the value's size only.
    @inline(__always)
    private func bits(at source: UnsafeRawPointer) -> UInt64 {
        if _fastPath(size == 8) { return source.loadUnaligned(as: UInt64.self) }
        switch size {
        case 1: return UInt64(source.loadUnaligned(as: UInt8.self))
        case 4: return UInt64(source.loadUnaligned(as: UInt32.self))
        default: return UInt64(source.loadUnaligned(as: UInt16.self))
        }
    }
}

/// How to assign any other stored value from its source to its property: the value witness of
/// its type, called as generic code calls it (the direct access).
struct InPlaceAssignment {
    let location: StoredLocation
    /// The value's type.
    let type: Any.Type

    /// One assignment: the new value copied in, then the old one destroyed (its deinit, user
    /// code, runs last).
    @inline(__always)
    func write(_ target: UnsafeMutableRawPointer, _ source: ValueSource) {
        let (destination, source) = location.addresses(target, source)
        assignWithCopy(destination, source, type)
    }
}
