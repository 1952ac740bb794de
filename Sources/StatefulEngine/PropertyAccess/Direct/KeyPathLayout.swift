// The direct access's reading of key path objects and class metadata: which property a key
// path reaches, from the layouts the Swift runtime gives them (not API; see PropertyAccess).

// The gate (see PropertyAccess.selectStrategy): only where these layouts were verified.
#if os(Linux) && arch(x86_64) && canImport(Glibc) && !_runtime(_ObjC) && !STATEFULCONTROLS_PORTABLE_ONLY

    /// The size of a class's instances (the positive extent from the object's address), from the
    /// Swift runtime: where a key path object's buffer starts, and the bound that tells a stored
    /// property's offset from a wrong one. The standard library declares this runtime function
    /// the same way (for `ManagedBuffer`).
    @_silgen_name("_swift_getSwiftClassInstanceExtents")
    func instanceExtents(_ theClass: AnyClass) -> (negative: UInt, positive: UInt)

    /// One component of a key path object, read from its buffer.
    ///
    /// The buffer's layout is the runtime's (`KeyPath.h` of the Swift runtime): a header word
    /// (size and flags), then per component a 32-bit header (kind, flags, inline payload) and its
    /// payload, with the next component's root type, pointer-aligned, between components. The
    /// reader is strict: a flag or a kind it does not know refuses the whole key path, which is
    /// then compared as a key path (`==`) and written through it.
    struct KeyPathComponent {
        enum Kind {
            /// A stored property at `identifier` bytes into a class instance.
            case classStored
            /// A stored property at `identifier` bytes into a struct.
            case structStored
            /// A computed property: `identifier` is its id, `accessors` its thunks.
            case computed
            /// Optional chaining, wrapping or forcing.
            case optional
        }

        let kind: Kind
        /// The component's header word (kind, flags, inline offset).
        let header: UInt32
        /// The stored offset, or the computed property's id.
        let identifier: UInt
        /// A computed property's accessors: its getter thunk, its setter thunk when settable and
        /// nonmutating, and the argument block the key path passes them; nil for a stored property.
        let accessors: (getter: UnsafeRawPointer, setter: UnsafeRawPointer?, block: UnsafeRawPointer)?
        /// The type the next component starts from; 0 for the last.
        let nextRoot: UInt

        // The buffer header.
        private static let bufferSizeMask: UInt32 = 0x00FF_FFFF
        private static let bufferKnownFlags: UInt32 = 0xE000_0000  // trivial, reference prefix, single component
        // A component header: the discriminator, then per kind its flags and payload.
        private static let endOfReferencePrefix: UInt32 = 0x8000_0000
        private static let discriminatorShift: UInt32 = 24
        private static let structTag: UInt32 = 1, computedTag: UInt32 = 2, classTag: UInt32 = 3, optionalTag: UInt32 = 4
        private static let payloadMask: UInt32 = 0x00FF_FFFF
        private static let storedMutable: UInt32 = 0x0080_0000
        private static let storedOffsetMask: UInt32 = 0x007F_FFFF
        private static let maximumInlineOffset: UInt32 = 0x007F_FFFC
        private static let outOfLineOffset: UInt32 = 0x007F_FFFF
        private static let computedMutating: UInt32 = 0x0080_0000
        private static let computedSettable: UInt32 = 0x0040_0000
        /// Optional chaining (0), wrapping (1) and forcing (2).
        private static let maximumOptionalPayload: UInt32 = 2

        /// The components of `keyPath`, or nil if its buffer holds anything this reader does not
        /// know. The pointers in them live as long as the key path object.
        ///
        /// Refused: an external component (a property of a resilient type, resolved through its
        /// descriptor), an unresolved stored offset, and a computed component with arguments (a
        /// subscript), an id resolved by stored property or by vtable offset (a protocol
        /// requirement), an id not resolved to a pointer, or any flag this reader does not name.
        static func components(of keyPath: AnyKeyPath) -> [KeyPathComponent]? {
            components(inBuffer: buffer(of: keyPath))
        }

        /// Where the buffer of `keyPath` starts (its header word): tail-allocated, 4-aligned, after
        /// the key path object's stored properties.
        static func buffer(of keyPath: AnyKeyPath) -> UnsafeRawPointer {
            let object = UnsafeRawPointer(Unmanaged.passUnretained(keyPath).toOpaque())
            let instanceSize = Int(instanceExtents(type(of: keyPath)).positive)
            return object + ((instanceSize + 3) & ~3)
        }

        /// The components of the key path buffer whose header word is at `base`.
        static func components(inBuffer base: UnsafeRawPointer) -> [KeyPathComponent]? {
            let header = base.load(as: UInt32.self)
            guard header & ~(bufferSizeMask | bufferKnownFlags) == 0 else { return nil }
            let word = MemoryLayout<Int>.size
            let start = base + word
            let end = start + Int(header & bufferSizeMask)
            func aligned(_ p: UnsafeRawPointer) -> UnsafeRawPointer {
                UnsafeRawPointer(bitPattern: (UInt(bitPattern: p) + UInt(word - 1)) & ~UInt(word - 1))!
            }
            var components: [KeyPathComponent] = []
            var cursor = start
            while cursor < end {
                guard end - cursor >= 4 else { return nil }
                let componentHeader = cursor.load(as: UInt32.self) & ~endOfReferencePrefix
                cursor += 4
                let payload = componentHeader & payloadMask
                let kind: Kind
                var identifier: UInt = 0
                var accessors: (getter: UnsafeRawPointer, setter: UnsafeRawPointer?, block: UnsafeRawPointer)?
                switch componentHeader >> discriminatorShift {
                case structTag, classTag:
                    kind = componentHeader >> discriminatorShift == classTag ? .classStored : .structStored
                    let offset = payload & ~storedMutable
                    if offset == outOfLineOffset {
                        guard end - cursor >= 4 else { return nil }
                        identifier = UInt(cursor.load(as: UInt32.self))
                        cursor += 4
                    } else {
                        guard offset <= maximumInlineOffset else { return nil }  // unresolved
                        identifier = UInt(offset)
                    }
                case computedTag:
                    // Only the two flags the writer reads; a resolved, absolute id (resolution 0).
                    guard payload & ~(computedMutating | computedSettable) == 0 else { return nil }
                    kind = .computed
                    cursor = aligned(cursor)
                    let settable = payload & computedSettable != 0
                    let words = settable ? 3 : 2  // id, getter, setter
                    guard end - cursor >= words * word else { return nil }
                    identifier = UInt(bitPattern: cursor.load(as: Int.self))
                    let setter =
                        settable && payload & computedMutating == 0
                        ? cursor.load(fromByteOffset: 2 * word, as: UnsafeRawPointer.self) : nil
                    accessors = (cursor.load(fromByteOffset: word, as: UnsafeRawPointer.self), setter, cursor + word)
                    cursor += words * word
                case optionalTag:
                    guard payload <= maximumOptionalPayload else { return nil }
                    kind = .optional
                default:
                    return nil  // external, or a kind this reader does not know
                }
                var nextRoot: UInt = 0
                if cursor < end {
                    // Between components: the next component's root type, pointer-aligned.
                    cursor = aligned(cursor)
                    guard end - cursor >= word else { return nil }
                    nextRoot = UInt(bitPattern: cursor.load(as: Int.self))
                    guard nextRoot != 0 else { return nil }
                    cursor += word
                }
                components.append(
                    KeyPathComponent(
                        kind: kind, header: componentHeader, identifier: identifier,
                        accessors: accessors, nextRoot: nextRoot))
            }
            return cursor == end && !components.isEmpty ? components : nil
        }

        /// The offset of the property `components` lead to inside an object of `instanceSize`
        /// bytes, if they are stored properties of it (and of structs stored in it); nil otherwise.
        static func storedOffset(_ components: [KeyPathComponent], valueSize: Int, instanceSize: Int) -> Int? {
            guard components.first?.kind == .classStored, components.dropFirst().allSatisfy({ $0.kind == .structStored })
            else { return nil }
            let offset = components.reduce(0) { $0 + Int($1.identifier) }
            return offset >= objectHeaderSize && offset + valueSize <= instanceSize ? offset : nil
        }

        /// The identity of the property `keyPath` leads to from a target of class `rootClass`
        /// (see ``PropertyPath``), or nil when the reader does not know every component.
        ///
        /// Stored offsets are the same whichever subclass the path starts from. So are method
        /// descriptors, but a final subclass that overrides the property has its key path call
        /// the override directly: the first component's method descriptor is therefore resolved,
        /// like a virtual call, to the getter the target's class uses. A later component's
        /// override (`\A.child.property` where `child`'s class overrides `property` in a final
        /// subclass) is not resolved: the class of `child` is only known by evaluating the path.
        static func identity(of keyPath: AnyKeyPath, rootClass: AnyClass) -> [UInt64]? {
            guard let components = components(of: keyPath) else { return nil }
            return components.enumerated().flatMap { index, component -> [UInt64] in
                var identifier = component.identifier
                if index == 0, case .computed = component.kind {
                    identifier = getter(calledThrough: identifier, by: rootClass) ?? identifier
                }
                return [UInt64(component.header), UInt64(identifier), UInt64(component.nextRoot)]
            }
        }

        /// The getter `rootClass` calls through `id` when `id` is a getter's method descriptor (an
        /// overridable property): the implementation in the class's vtable slot for it. Nil when
        /// `id` is not a method descriptor (it is then a final getter, already what is called).
        private static func getter(calledThrough id: UInt, by rootClass: AnyClass) -> UInt? {
            // A method descriptor: flags (kind 2 = getter, 0x10 = instance), then a relative
            // pointer to the implementation declared with it.
            guard let descriptor = UnsafeRawPointer(bitPattern: id),
                descriptor.load(as: UInt32.self) & 0x1F == 0x12
            else { return nil }
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
                    size > addressPoint, size - addressPoint < 1 << 20
                else { return nil }
                for offset in stride(from: 56, to: size - addressPoint, by: MemoryLayout<UInt>.size)
                where candidate.load(fromByteOffset: offset, as: UInt.self) == declared {
                    return metadata.load(fromByteOffset: offset, as: UInt.self)
                }
                ancestor = candidate.load(fromByteOffset: 8, as: UnsafeRawPointer?.self)
            }
            return nil
        }
    }

#endif
