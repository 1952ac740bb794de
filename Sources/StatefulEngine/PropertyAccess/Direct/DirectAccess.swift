// The direct property access: writes at a stored property's offset or through the key path's
// setter thunk, reads through its getter thunk, and tells a dead target from its reference
// counts — all from runtime layouts that are not API (see PropertyAccess).

// The gate (see PropertyAccess.selectStrategy): only where these layouts were verified.
#if os(Linux) && arch(x86_64) && canImport(Glibc) && !_runtime(_ObjC) && !STATEFULCONTROLS_PORTABLE_ONLY
    internal import CSwiftRuntime

    /// Reaches properties through what their key path objects say (see ``KeyPathComponent``);
    /// what it does not understand goes through its key path, as with the portable access.
    struct DirectAccess: PropertyAccessStrategy {
        var access: PropertyAccess { .direct }

        func property<Value>(_ keyPath: AnyKeyPath, valueType: Value.Type, rootClass: AnyClass) -> PropertyPath {
            guard let components = KeyPathComponent.identity(of: keyPath, rootClass: rootClass) else {
                return PropertyPath(keyPath, valueType: valueType)
            }
            return PropertyPath(components: components, valueType: valueType)
        }

        /// Writes at the property's offset or through its accessor; what it does not write
        /// itself, through the caller's accessor (see ``PortableAccess``).
        func writer<Target: AnyObject, Value>(
            _ keyPath: ReferenceWritableKeyPath<Target, Value>, targetClass: AnyClass, box: ValueBox<Value>,
            accessors: KeyPathAccessors<Target, Value>
        ) -> AnyPropertyWriter {
            DirectPropertyWriter(keyPath, targetClass: targetClass, box: box)
                ?? PortableAccess().writer(keyPath, targetClass: targetClass, box: box, accessors: accessors)
        }

        func reader<Root: AnyObject>(_ keyPath: KeyPath<Root, Bool>, rootClass: AnyClass) -> (AnyObject) -> Bool {
            let components = KeyPathComponent.components(of: keyPath) ?? []
            if components.count == 1, let accessors = components[0].accessors {
                return { root in
                    var result = false
                    withUnsafeMutablePointer(to: &result) { result in
                        withUnsafePointer(to: root) { swiftrt_call_key_path_getter(accessors.getter, result, $0, accessors.block) }
                    }
                    withExtendedLifetime(keyPath) {}  // the getter's argument block lives in it
                    return result
                }
            }
            if let offset = KeyPathComponent.storedOffset(
                components, valueSize: MemoryLayout<Bool>.size,
                instanceSize: Int(instanceExtents(rootClass).positive))
            {
                return { (UnsafeRawPointer(Unmanaged.passUnretained($0).toOpaque()) + offset).load(as: Bool.self) }
            }
            return PortableAccess().reader(keyPath, rootClass: rootClass)
        }
    }

    /// Writes a value (see ``ValueSource``) to a stored property at its offset, or through a computed property's
    /// setter thunk, as the key path would.
    ///
    /// A key path write through the standard library walks the key path and allocates. This
    /// writer does neither where it applies:
    /// - a stored property of the target, or of a struct stored in it, without observers (the key
    ///   path reaches the storage directly): assigned at its offset by the apply loop itself —
    ///   what the setter does — a trivial value of 1, 2, 4 or 8 bytes copied as bytes
    ///   (``TrivialCopy``), any other through its type's value witness (``InPlaceAssignment``);
    /// - a settable computed property of the target (computed, observed with `didSet`, or
    ///   overridable, which key paths reach through accessors): its setter, called as the key
    ///   path calls it.
    /// A direct write to a stored property is checked for exclusivity as an assignment is, by
    /// the resolver, at ``AnyPropertyWriter/accessOffset``; a setter makes its own checks.
    final class DirectPropertyWriter<Target: AnyObject, Value>: AnyPropertyWriter {
        private enum Access {
            /// At its offset in the target object (``AnyPropertyWriter/trivialCopy`` or
            /// ``AnyPropertyWriter/inPlaceAssignment``).
            case stored
            /// Through a computed property's setter thunk, passing the key path's argument block.
            case setter(UnsafeRawPointer, block: UnsafeRawPointer)
        }

        private let access: Access
        /// Where a value lies in each kind of source (``ValueOffsets/table(inBox:inBinding:)``).
        private let offsets: UnsafePointer<Int>

        /// The writer of `keyPath` on targets of class `targetClass` (a subclass of `Target`);
        /// `box` is any box of the values it writes. Nil when the key path leads elsewhere than a
        /// stored or settable computed property of the target.
        init?(_ keyPath: ReferenceWritableKeyPath<Target, Value>, targetClass: AnyClass, box: ValueBox<Value>) {
            guard let components = KeyPathComponent.components(of: keyPath), let first = components.first,
                let defaultOffset = TypedBinding<Value>.defaultValueOffset
            else { return nil }
            let size = MemoryLayout<Value>.size
            offsets = ValueOffsets.table(inBox: box.valueOffset, inBinding: defaultOffset)
            if components.count == 1, let accessors = first.accessors {
                guard let setter = accessors.setter else { return nil }
                access = .setter(setter, block: accessors.block)
                super.init(keyPath: keyPath, trivialCopy: nil)
            } else if let offset = KeyPathComponent.storedOffset(
                components, valueSize: size,
                instanceSize: Int(instanceExtents(targetClass).positive))
            {
                access = .stored
                let isTrivialWord = _isPOD(Value.self) && [1, 2, 4, 8].contains(size)
                let location = StoredLocation(offsets: offsets, targetOffset: offset)
                super.init(
                    keyPath: keyPath,
                    trivialCopy: isTrivialWord ? TrivialCopy(location: location, size: size) : nil,
                    inPlaceAssignment: isTrivialWord ? nil : InPlaceAssignment(location: location, type: Value.self),
                    // Swift's access is to the class's stored property, a struct's field within it.
                    accessOffset: Int(first.identifier))
            } else {
                return nil
            }
        }

        /// Whether the writer assigns at an offset (false: it calls a setter).
        var writesInPlace: Bool {
            if case .stored = access { return true }
            return false
        }

        /// A key path setter thunk: the new value and the root by address (maximally abstracted),
        /// then the key path's argument block and its size.
        private typealias Setter = @convention(thin) (UnsafeRawPointer, UnsafeRawPointer, UnsafeRawPointer, Int) -> Void

        /// Through the setter; a stored value is written by ``AnyPropertyWriter/writeInline(_:_:)``.
        ///
        /// The caller holds the target through the call, as any caller of a setter does, and this
        /// writer, whose key path holds the setter's argument block.
        override func write(_ target: UnsafePointer<UnsafeMutableRawPointer>, _ source: ValueSource) {
            guard case .setter(let function, let block) = access else { Self.storedValueWrittenBySetter() }
            unsafeBitCast(function, to: Setter.self)(source.address(in: offsets), target, block, 0)
        }

        /// Out of line: the setter's call is then the write's last instruction, a jump.
        @inline(never)
        private static func storedValueWrittenBySetter() -> Never {
            internalInconsistency("DirectPropertyWriter: a stored value is written by writeInline")
        }
    }

    extension BoundTarget {
        /// Where the record keeps ``address``: a reference to the object, as a key path's setter
        /// thunk takes its target, valid while the record lives (an apply keeps the records of
        /// the bindings it writes). The record's first field, right after its object header
        /// (see ``DirectAccessSelfCheck``).
        @inline(__always)
        var addressLocation: UnsafePointer<UnsafeMutableRawPointer> {
            UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque()).advanced(by: objectHeaderSize)
                .assumingMemoryBound(to: UnsafeMutableRawPointer.self)
        }
    }

    /// The bytes of a Swift object's header, before its first stored property: its metadata
    /// pointer and its reference counts.
    var objectHeaderSize: Int { 2 * MemoryLayout<Int>.size }

    extension AnyPropertyWriter {
        /// Writes the value at `source` to the property of `object`, which the caller holds, as
        /// the apply loop writes it (the self-check's and the tests' writes).
        func writeInline(to object: AnyObject, _ source: ValueSource) {
            writeInline(BoundTarget.make(object, id: 1, access: .direct, onMainActor: false), source)
        }
    }

    /// Where `field`, a stored property of `object`, lies in it, in bytes from its address.
    private func offset<Field>(of field: inout Field, in object: AnyObject) -> Int {
        withUnsafeMutablePointer(to: &field) { UnsafeRawPointer($0) - UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque()) }
    }

    extension ValueBox {
        /// Where the value lies in the box, in bytes from the object's address (the same in every
        /// box of this type).
        var valueOffset: Int { offset(of: &value, in: self) }
    }

    extension TypedBinding {
        /// Where the default value lies in a binding of this type, in bytes from the object's
        /// address; nil for an alignment not measured. A subclass's stored property follows its
        /// superclass's at the next multiple of its alignment, so the offset depends on the
        /// alignment alone: measured once per process on a binding of each alignment (the
        /// self-check compares other types with it).
        static var defaultValueOffset: Int? { defaultValueOffsets[MemoryLayout<Value>.alignment] }

        /// Where the default value lies in this binding (see ``defaultValueOffset``).
        var measuredDefaultValueOffset: Int { offset(of: &defaultValue, in: self) }
    }

    /// The offset of a binding's default value by the value's alignment (1 to 16 bytes).
    private let defaultValueOffsets: [Int: Int] = {
        final class Probe {}
        let probe = Probe()
        let fields = BindingFields(
            target: BoundTarget.make(probe, id: 1, access: .portable, onMainActor: false), keyPathID: 0,
            writer: AnyPropertyWriter(keyPath: \Probe.self, trivialCopy: nil))
        func offset<Value>(_ value: Value) -> (Int, Int) {
            (MemoryLayout<Value>.alignment, TypedBinding(value, fields).measuredDefaultValueOffset)
        }
        let offsets = [offset(UInt8(0)), offset(UInt16(0)), offset(UInt32(0)), offset(UInt64(0)), offset(SIMD16<UInt8>())]
        return Dictionary(offsets) { first, _ in first }
    }()

    /// Whether the object at `address` is being (or has been) deinitialised, from its reference
    /// counts; its memory must still be allocated (see ``BoundTarget``).
    @inline(__always)
    func isDeallocating(_ address: UnsafeMutableRawPointer) -> Bool { swiftrt_is_deallocating(address) }

    /// Takes a strong reference to the object at `address` unless its deinitialisation has begun;
    /// returns whether it did. Its memory must still be allocated (see ``BoundTarget``).
    @inline(__always)
    func tryRetain(_ address: UnsafeMutableRawPointer) -> Bool { swiftrt_try_retain(address) }

    /// Releases a strong reference to the object at `address` (taken by ``tryRetain(_:)``).
    @inline(__always)
    func release(_ address: UnsafeMutableRawPointer) { swiftrt_release(address) }

    /// Assigns the value at `source` to the value at `destination`, both of type `type`, through
    /// the type's value witness (see `swiftrt_assign_with_copy`).
    @inline(__always)
    func assignWithCopy(_ destination: UnsafeMutableRawPointer, _ source: UnsafeRawPointer, _ type: Any.Type) {
        swiftrt_assign_with_copy(destination, source, unsafeBitCast(type, to: UnsafeRawPointer.self))
    }

    /// Stops the program, with Swift's message, when an access to the class stored property at
    /// `address` is in progress: the check an assignment makes before it stores (see
    /// `swiftrt_check_modify_access`).
    @inline(__always)
    func checkModifyAccess(_ address: UnsafeMutableRawPointer) { swiftrt_check_modify_access(address) }

    /// Whether this thread has an access in progress that Swift tracks (see
    /// `swiftrt_accesses_in_progress`): without one, the writes of an apply need no check.
    func accessesInProgress() -> Bool { swiftrt_accesses_in_progress() }

#else
    // Where the direct access is not compiled no target reads reference counts and no writer
    // writes in place, so the code that calls these (the apply loop's direct branch, a direct
    // writer's checks) never runs; they stand in so that it compiles everywhere.

    func isDeallocating(_ address: UnsafeMutableRawPointer) -> Bool { directAccessNotCompiled() }
    func tryRetain(_ address: UnsafeMutableRawPointer) -> Bool { directAccessNotCompiled() }
    func release(_ address: UnsafeMutableRawPointer) { directAccessNotCompiled() }
    func assignWithCopy(_ destination: UnsafeMutableRawPointer, _ source: UnsafeRawPointer, _ type: Any.Type) {
        directAccessNotCompiled()
    }
    func checkModifyAccess(_ address: UnsafeMutableRawPointer) { directAccessNotCompiled() }
    func accessesInProgress() -> Bool { directAccessNotCompiled() }
    extension BoundTarget {
        var addressLocation: UnsafePointer<UnsafeMutableRawPointer> { directAccessNotCompiled() }
    }

    private func directAccessNotCompiled() -> Never {
        internalInconsistency("the direct property access's code reached where it is not compiled")
    }
#endif
