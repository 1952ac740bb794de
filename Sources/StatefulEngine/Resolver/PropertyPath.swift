/// The property a key path leads to, independent of the key path's root type.
///
/// `\Button.titleColor` and `\VisitableButton.titleColor` are different key paths (`==` is
/// false: their types differ), yet on a `VisitableButton` they are one property, and a resolver
/// must keep one binding for it — otherwise two rule sets would write the same property and
/// priorities across them would mean nothing. The key path object says which property it
/// reaches: each component records a stored property's offset, or a computed property's
/// identifier — the getter's method descriptor for an overridable property, the getter itself
/// for a final one. Stored offsets are the same whichever subclass the path starts from. So are
/// method descriptors, but a final subclass that overrides the property has its key path call
/// the override directly: the first component's method descriptor is therefore resolved, like
/// a virtual call, to the getter the target's class uses (found in the class's vtable). A
/// `PropertyPath` is that list of components, plus the value type, for one class of target.
///
/// The components are read from the key path object's buffer, whose layout the Swift runtime
/// fixes (the constants are the runtime's `KeyPath.h`; the class metadata layout is its
/// `Metadata.h` without Objective-C interop). A key path this reader does not fully
/// understand — one with subscript arguments, or any unknown component — is identified by the
/// key path itself (`==`), as before: a miss only means two roots are not merged, never that
/// two properties are. A later component's override (`\A.child.property` where `child`'s class
/// overrides `property` in a final subclass) is not resolved: the class of `child` is only
/// known by evaluating the path.
struct PropertyPath: Hashable {
    private enum Identity: Hashable {
        /// Per component: its header, its offset or (resolved) identifier, and the next
        /// component's root type.
        case components([UInt64])
        case keyPath(AnyKeyPath)
    }

    private let identity: Identity
    private let valueType: ObjectIdentifier

    /// The property `keyPath` leads to from a target of class `rootClass`.
    init<Value>(_ keyPath: AnyKeyPath, valueType: Value.Type, rootClass: AnyClass) {
        self.valueType = ObjectIdentifier(valueType)
        guard let components = KeyPathComponent.components(of: keyPath) else {
            identity = .keyPath(keyPath)
            return
        }
        identity = .components(components.enumerated().flatMap { index, component -> [UInt64] in
            var identifier = component.identifier
            if index == 0, case .computed = component.kind {
                identifier = Self.getter(calledThrough: identifier, by: rootClass) ?? identifier
            }
            return [UInt64(component.header), UInt64(identifier), UInt64(component.nextRoot)]
        })
    }

    /// Whether the path was read component by component (false: compared as a key path).
    var isCanonical: Bool {
        if case .components = identity { return true }
        return false
    }

    /// The getter `rootClass` calls through `id` when `id` is a getter's method descriptor (an
    /// overridable property): the implementation in the class's vtable slot for it. Nil when
    /// `id` is not a method descriptor (it is then a final getter, already what is called).
    private static func getter(calledThrough id: UInt, by rootClass: AnyClass) -> UInt? {
        // A method descriptor: flags (kind 2 = getter, 0x10 = instance), then a relative
        // pointer to the implementation declared with it.
        guard let descriptor = UnsafeRawPointer(bitPattern: id),
              descriptor.load(as: UInt32.self) & 0x1F == 0x12 else { return nil }
        let implementationField = descriptor + 4
        let declared = UInt(bitPattern: implementationField + Int(implementationField.load(as: Int32.self)))
        // Class metadata (no Objective-C interop): superclass at 8, flags at 16, the metadata's
        // size and address point at 32 and 36, members (vtable included) from 56. A subclass's
        // metadata keeps its superclass's slots at the same offsets: find the slot that holds
        // the declared getter in the declaring class, and read the same slot in `rootClass`.
        let metadata = unsafeBitCast(rootClass, to: UnsafeRawPointer.self)
        var ancestor: UnsafeRawPointer? = metadata
        while let candidate = ancestor {
            let size = Int(candidate.load(fromByteOffset: 32, as: UInt32.self))
            let addressPoint = Int(candidate.load(fromByteOffset: 36, as: UInt32.self))
            guard candidate.load(fromByteOffset: 16, as: UInt32.self) & 0x2 != 0,  // uses Swift refcounting
                  size > addressPoint, size - addressPoint < 1 << 20 else { return nil }
            for offset in stride(from: 56, to: size - addressPoint, by: MemoryLayout<UInt>.size)
            where candidate.load(fromByteOffset: offset, as: UInt.self) == declared {
                return metadata.load(fromByteOffset: offset, as: UInt.self)
            }
            ancestor = candidate.load(fromByteOffset: 8, as: UnsafeRawPointer?.self)
        }
        return nil
    }
}

/// One component of a key path object, read from its buffer (see ``PropertyPath``), or nil for
/// a key path with anything this reader does not know.
struct KeyPathComponent {
    enum Kind {
        /// A stored property at `identifier` bytes into a class instance.
        case classStored
        /// A stored property at `identifier` bytes into a struct.
        case structStored
        /// A computed property: `identifier` is its id, `accessors` its thunks.
        case computed
        case optional
    }

    let kind: Kind
    /// The component's header word (kind, flags, inline offset).
    let header: UInt32
    /// The stored offset, or the computed property's id.
    let identifier: UInt
    /// A computed property's accessors: its getter thunk, its setter thunk when settable and
    /// nonmutating, and the block the key path passes them (see ``PropertyWriter`` and
    /// ``BoolPropertyReader``); nil for a stored property.
    let accessors: (getter: UnsafeRawPointer, setter: UnsafeRawPointer?, block: UnsafeRawPointer)?
    /// The type the next component starts from; 0 for the last.
    let nextRoot: UInt

    private static let discriminatorShift: UInt32 = 24
    private static let structTag: UInt32 = 1, computedTag: UInt32 = 2, classTag: UInt32 = 3, optionalTag: UInt32 = 4
    private static let storedOffsetMask: UInt32 = 0x007F_FFFF
    private static let maximumInlineOffset: UInt32 = 0x007F_FFFC
    private static let outOfLineOffset: UInt32 = 0x007F_FFFF
    private static let computedMutating: UInt32 = 0x0080_0000
    private static let computedSettable: UInt32 = 0x0040_0000
    private static let computedIDByStoredProperty: UInt32 = 0x0020_0000
    private static let computedHasArguments: UInt32 = 0x0008_0000
    private static let computedIDResolutionMask: UInt32 = 0x0000_000F
    private static let bufferSizeMask: UInt32 = 0x00FF_FFFF
    private static let bufferReservedMask: UInt32 = 0x1F00_0000

    /// The components of `keyPath`, or nil if its buffer holds anything this reader does not
    /// know. The pointers in them live as long as the key path object.
    static func components(of keyPath: AnyKeyPath) -> [KeyPathComponent]? {
        let object = UnsafeRawPointer(Unmanaged.passUnretained(keyPath).toOpaque())
        // The buffer is tail-allocated after the key path object's stored properties.
        let instanceSize = Int(instanceExtents(type(of: keyPath)).positive)
        let base = object + ((instanceSize + 3) & ~3)
        let header = base.load(as: UInt32.self)
        guard header & bufferReservedMask == 0 else { return nil }
        let start = base + MemoryLayout<Int>.size
        let end = start + Int(header & bufferSizeMask)
        let word = MemoryLayout<Int>.size
        func aligned(_ p: UnsafeRawPointer) -> UnsafeRawPointer {
            UnsafeRawPointer(bitPattern: (UInt(bitPattern: p) + UInt(word - 1)) & ~UInt(word - 1))!
        }
        var components: [KeyPathComponent] = []
        var cursor = start
        while cursor < end {
            guard end - cursor >= 4 else { return nil }
            let componentHeader = cursor.load(as: UInt32.self) & 0x7FFF_FFFF  // without end-of-prefix
            cursor += 4
            var kind = Kind.optional
            var identifier: UInt = 0
            var accessors: (getter: UnsafeRawPointer, setter: UnsafeRawPointer?, block: UnsafeRawPointer)?
            switch componentHeader >> discriminatorShift {
            case structTag, classTag:
                kind = componentHeader >> discriminatorShift == classTag ? .classStored : .structStored
                let payload = componentHeader & storedOffsetMask
                if payload == outOfLineOffset {
                    guard end - cursor >= 4 else { return nil }
                    identifier = UInt(cursor.load(as: UInt32.self))
                    cursor += 4
                } else {
                    guard payload <= maximumInlineOffset else { return nil }  // unresolved
                    identifier = UInt(payload)
                }
            case computedTag:
                guard componentHeader & (computedHasArguments | computedIDByStoredProperty | computedIDResolutionMask) == 0
                else { return nil }
                kind = .computed
                cursor = aligned(cursor)
                let settable = componentHeader & computedSettable != 0
                let words = settable ? 3 : 2  // id, getter, setter
                guard end - cursor >= words * word else { return nil }
                identifier = UInt(bitPattern: cursor.load(as: Int.self))
                let setter = settable && componentHeader & computedMutating == 0
                    ? cursor.load(fromByteOffset: 2 * word, as: UnsafeRawPointer.self) : nil
                accessors = (cursor.load(fromByteOffset: word, as: UnsafeRawPointer.self), setter, cursor + word)
                cursor += words * word
            case optionalTag:
                break
            default:
                return nil
            }
            var nextRoot: UInt = 0
            if cursor < end {
                // Between components: the next component's root type, pointer-aligned.
                cursor = aligned(cursor)
                guard end - cursor >= word else { return nil }
                nextRoot = UInt(bitPattern: cursor.load(as: Int.self))
                cursor += word
            }
            components.append(KeyPathComponent(kind: kind, header: componentHeader, identifier: identifier,
                                               accessors: accessors, nextRoot: nextRoot))
        }
        return components.isEmpty ? nil : components
    }
}
