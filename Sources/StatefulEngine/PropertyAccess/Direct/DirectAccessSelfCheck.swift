// The direct access's start-up self-check: each layout it reads, verified on the library's own
// private types against what plain Swift says, before a process first uses it.

// The gate (see PropertyAccess.selectStrategy): only where these layouts were verified.
#if os(Linux) && arch(x86_64) && canImport(Glibc) && !_runtime(_ObjC) && !STATEFULCONTROLS_PORTABLE_ONLY
    internal import CSwiftRuntime

    /// Verifies, once per process, every assumption of the direct access on types of its own;
    /// any mismatch makes the process use the portable access (``PropertyAccess/selectStrategy``).
    ///
    /// The checks run in order, and each step only runs when the ones before it passed: nothing is
    /// written at a parsed offset before the offsets were compared with the layout the compiler
    /// reports (`MemoryLayout.offset(of:)`), and no thunk is called before its component was read
    /// as a well-formed computed property.
    enum DirectAccessSelfCheck {
        /// An assumption of the direct access, named in the diagnostic when it does not hold.
        enum Assumption: String, CaseIterable {
            case keyPathBuffer = "key path buffers are read as the expected components"
            case storedOffsets = "stored offsets match MemoryLayout.offset(of:)"
            case storedWrites = "a write at a stored offset is what a key path reads"
            case recordLayout = "a target's record keeps the target's address as its first field"
            case defaultOffsets = "a binding's default value lies where its alignment says"
            case setterThunks = "a setter thunk call is a key path write, observers included"
            case getterThunks = "a getter thunk call is a key path read"
            case vtableResolution = "an override is found through the vtable"
            case liveness =
                "the reference counts say what swift_isDeallocating says, and a reference taken and released there is the runtime's"
            case accessRecords = "the runtime's records of tracked accesses are read as a list"
        }

        /// Makes the process's self-check fail this assumption, as a runtime that disagreed
        /// would: for tests, set before the process first uses a resolver.
        nonisolated(unsafe) static var injectedFault: Assumption?

        /// The assumptions that do not hold here, each with what was seen; empty when all hold.
        /// `fault` makes its check fail (for tests).
        static func failures(injecting fault: Assumption? = nil) -> [String] {
            var checks = Checks(fault: fault)
            checks.run()
            return checks.failures
        }

        private struct Checks {
            let fault: Assumption?
            var failures: [String] = []

            /// Records a failure of `assumption` unless `holds`; returns whether it held.
            mutating func expect(_ assumption: Assumption, _ holds: Bool, _ seen: @autoclosure () -> String) -> Bool {
                guard !holds || fault == assumption else { return true }
                failures.append("\(assumption.rawValue): \(holds ? "fault injected" : seen())")
                return false
            }

            mutating func run() {
                guard checkStoredLayout(), checkDefaultOffsets(), checkStoredWrites(), checkRecordLayout(), checkAccessors() else { return }
                checkLiveness()
                checkAccessRecords()
            }

            mutating func checkStoredLayout() -> Bool {
                let header = objectHeaderSize
                let expected: [(AnyKeyPath, kinds: [KeyPathComponent.Kind], offset: Int)] = [
                    (\StoredProbe.fields, [.classStored], header),
                    (\StoredProbe.fields.flag, [.classStored, .structStored], header + MemoryLayout<ProbeFields>.offset(of: \.flag)!),
                    (\StoredProbe.fields.word, [.classStored, .structStored], header + MemoryLayout<ProbeFields>.offset(of: \.word)!),
                    (\StoredProbe.fields.text, [.classStored, .structStored], header + MemoryLayout<ProbeFields>.offset(of: \.text)!),
                    (
                        \StoredProbe.fields.pair.1, [.classStored, .structStored, .structStored],
                        header + MemoryLayout<ProbeFields>.offset(of: \.pair.1)!
                    ),
                    (\StoredProbe.tail, [.classStored], (header + MemoryLayout<ProbeFields>.size + 1) & ~1),
                ]
                var parsed: [[KeyPathComponent]] = []
                for (keyPath, kinds, _) in expected {
                    let components = KeyPathComponent.components(of: keyPath)
                    guard
                        expect(
                            .keyPathBuffer, components?.map(\.kind) == kinds,
                            "\(keyPath) read as \(components.map { "\($0.map(\.kind))" } ?? "nothing")")
                    else { return false }
                    parsed.append(components!)
                }
                let instanceSize = Int(instanceExtents(StoredProbe.self).positive)
                for ((keyPath, _, offset), components) in zip(expected, parsed) {
                    let found = components.reduce(0) { $0 + Int($1.identifier) }
                    guard
                        expect(
                            .storedOffsets, found == offset && offset < instanceSize,
                            "\(keyPath) at \(found), expected \(offset) in \(instanceSize) bytes")
                    else { return false }
                }
                return true
            }

            /// A record's ``BoundTarget/addressLocation``, which a setter thunk reads its target
            /// from.
            mutating func checkRecordLayout() -> Bool {
                let probe = StoredProbe(), record = BoundTarget.make(probe, id: 1, access: .direct, onMainActor: false)
                let found = record.addressLocation.pointee
                return expect(.recordLayout, found == record.address, "\(found) where the record keeps \(record.address)")
            }

            /// The offset of a binding's default value, measured by alignment on integers, against
            /// bindings of other types.
            mutating func checkDefaultOffsets() -> Bool {
                let fields = BindingFields(
                    target: BoundTarget.make(Marker(), id: 1, access: .portable, onMainActor: false), keyPathID: 0,
                    writer: AnyPropertyWriter(keyPath: \Marker.self, trivialCopy: nil))
                func matches<Value>(_ value: Value) -> Bool {
                    let binding = TypedBinding(value, fields)
                    return expect(
                        .defaultOffsets, TypedBinding<Value>.defaultValueOffset == binding.measuredDefaultValueOffset,
                        "\(Value.self) at \(binding.measuredDefaultValueOffset), expected \(TypedBinding<Value>.defaultValueOffset.map(String.init) ?? "none")"
                    )
                }
                return matches(true) && matches(2.5) && matches("text") && matches((UInt8(1), UInt64(2)))
                    && matches(Marker() as AnyObject?) && matches(SIMD4<Float>(1, 2, 3, 4)) && matches(ProbeFields())
            }

            /// Writes as the apply loop does: trivial values copied as bytes, the others (a
            /// `String`, a class reference) through their value witness.
            mutating func checkStoredWrites() -> Bool {
                let probe = StoredProbe()
                weak var replaced: AnyObject?
                do {
                    let first = Marker()
                    replaced = first
                    probe.fields.object = first
                }
                let object = Marker()
                write(\StoredProbe.fields.word, 0x1234_5678, to: probe)
                write(\StoredProbe.fields.text, "written in place", to: probe)
                write(\StoredProbe.fields.pair.1, 2.5, to: probe)
                write(\StoredProbe.fields.object, object, to: probe)
                write(\StoredProbe.tail, 0xBEEF, to: probe)
                let fields = probe.fields
                return expect(
                    .storedWrites,
                    fields.word == 0x1234_5678 && fields.text == "written in place" && fields.pair == (0xAA, 2.5)
                        && fields.object === object && replaced == nil && probe.tail == 0xBEEF && !fields.flag && fields.small == 0x55,
                    "read back \(fields), tail \(probe.tail), replaced value \(replaced == nil ? "released" : "kept")")
            }

            /// Writes `value` through a direct writer, which must write in place.
            private mutating func write<Value>(
                _ keyPath: ReferenceWritableKeyPath<StoredProbe, Value>, _ value: Value, to probe: StoredProbe
            ) {
                let box = ValueBox(value)
                guard let writer = DirectPropertyWriter(keyPath, targetClass: StoredProbe.self, box: box), writer.writesInPlace else {
                    _ = expect(.storedWrites, false, "\(keyPath) not written in place")
                    return
                }
                withExtendedLifetime(box) {
                    writer.writeInline(to: probe, ValueSource(box: box))
                }
            }

            mutating func checkAccessors() -> Bool {
                // Each accessor component must be read as one well-formed computed component.
                let accessors: [(AnyKeyPath, settable: Bool)] = [
                    (\AccessorProbe.observed, true), (\AccessorProbe.computed, true), (\AccessorProbe.isEmpty, false),
                ]
                for (keyPath, settable) in accessors {
                    let components = KeyPathComponent.components(of: keyPath)
                    guard
                        expect(
                            .keyPathBuffer,
                            components?.count == 1 && components?[0].kind == .computed
                                && (components?[0].accessors?.setter != nil) == settable,
                            "\(keyPath) read as \(components.map { "\($0.map(\.kind))" } ?? "nothing")")
                    else { return false }
                }
                // Setters: the same observer calls, in the same order, as a key path write.
                let probe = AccessorProbe(), twin = AccessorProbe()
                let observed = ValueBox(7), computed = ValueBox("set")
                guard let observedWriter = DirectPropertyWriter(\AccessorProbe.observed, targetClass: AccessorProbe.self, box: observed),
                    let computedWriter = DirectPropertyWriter(\AccessorProbe.computed, targetClass: AccessorProbe.self, box: computed),
                    !observedWriter.writesInPlace, !computedWriter.writesInPlace
                else { return expect(.setterThunks, false, "no setter writer") }
                withExtendedLifetime((observed, computed)) {
                    observedWriter.writeInline(to: probe, ValueSource(box: observed))
                    computedWriter.writeInline(to: probe, ValueSource(box: computed))
                }
                twin[keyPath: \AccessorProbe.observed] = 7
                twin[keyPath: \AccessorProbe.computed] = "set"
                guard
                    expect(
                        .setterThunks, probe.log == twin.log && probe.backing == twin.backing,
                        "log \(probe.log), backing \(probe.backing); key path: \(twin.log), \(twin.backing)")
                else { return false }
                // The getter: both values of a computed Bool.
                let read = DirectAccess().reader(\AccessorProbe.isEmpty, rootClass: AccessorProbe.self)
                let empty = AccessorProbe()
                guard
                    expect(
                        .getterThunks,
                        read(probe) == probe[keyPath: \AccessorProbe.isEmpty] && read(empty) == empty[keyPath: \AccessorProbe.isEmpty],
                        "read \(read(probe)) and \(read(empty))")
                else { return false }
                // The vtable: a base key path is the override, on a final subclass that overrides.
                let access = DirectAccess()
                let throughBase = access.property(\AccessorProbe.overridable, valueType: Int.self, rootClass: OverridingProbe.self)
                let throughSubclass = access.property(\OverridingProbe.overridable, valueType: Int.self, rootClass: OverridingProbe.self)
                let other = access.property(\AccessorProbe.observed, valueType: Int.self, rootClass: OverridingProbe.self)
                let overriding = OverridingProbe(), box = ValueBox(3)
                guard let writer = DirectPropertyWriter(\AccessorProbe.overridable, targetClass: OverridingProbe.self, box: box) else {
                    return expect(.vtableResolution, false, "no setter writer for an overridable property")
                }
                withExtendedLifetime(box) {
                    writer.writeInline(to: overriding, ValueSource(box: box))
                }
                return expect(
                    .vtableResolution,
                    throughBase.isCanonical && throughBase == throughSubclass && throughBase != other
                        && overriding.overridable == 30, "merged \(throughBase == throughSubclass), wrote \(overriding.overridable)")
            }

            /// Two tracked accesses begun here: the newer's record names the older's as next, and
            /// the probe — from the runtime's list where it is found, else from a record — sees
            /// an access in progress while they last, and what it saw before after.
            mutating func checkAccessRecords() {
                let listFound = swiftrt_find_access_list()
                let before = accessesInProgress()
                var first: (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) = (nil, nil, nil)
                var second = first
                var (a, b) = (0, 0)
                let (seen, linked, after) = withUnsafeMutablePointer(to: &a) { a in
                    withUnsafeMutablePointer(to: &b) { b in
                        withUnsafeMutablePointer(to: &first) { first in
                            withUnsafeMutablePointer(to: &second) { second in
                                swift_beginAccess(a, first, 0x21, nil)
                                swift_beginAccess(b, second, 0x21, nil)
                                let seen = accessesInProgress()
                                let linked = withUnsafeBytes(of: second.pointee) { record in
                                    swiftrt_next_access_record(record.baseAddress!.assumingMemoryBound(to: UnsafeMutableRawPointer?.self))
                                        == UnsafeMutableRawPointer(first)
                                }
                                swift_endAccess(second)
                                swift_endAccess(first)
                                return (seen, linked, accessesInProgress())
                            }
                        }
                    }
                }
                _ = expect(
                    .accessRecords, seen && linked && after == before,
                    "in progress \(seen), linked \(linked), after \(after) (before \(before)), list found \(listFound)")
            }

            mutating func checkLiveness() {
                /// What the reference counts, the runtime and a strong reference attempt say of the
                /// object at an address: (deallocating, deallocating, retained). A reference taken
                /// must raise the runtime's count by one, and its release lower it back.
                func liveness(_ address: UnsafeMutableRawPointer) -> (direct: Bool, runtime: Bool, retained: Bool) {
                    let before = swift_retainCount(address)
                    var retained = tryRetain(address)
                    if retained {
                        retained = swift_retainCount(address) == before + 1
                        release(address)
                        retained = retained && swift_retainCount(address) == before
                    }
                    return (isDeallocating(address), swift_isDeallocating(address), retained)
                }
                nonisolated(unsafe) var inDeinit: (direct: Bool, runtime: Bool, retained: Bool)?
                var seen: [(direct: Bool, runtime: Bool, retained: Bool)] = []
                do {
                    let probe = LivenessProbe { address in inDeinit = liveness(address) }
                    let address = Unmanaged.passUnretained(probe).toOpaque()
                    seen.append(liveness(address))  // counts inline
                    weak let weakProbe = probe
                    seen.append(liveness(address))  // in a side table
                    withExtendedLifetime((probe, weakProbe)) {}
                }
                _ = expect(
                    .liveness,
                    seen.allSatisfy { !$0.direct && !$0.runtime && $0.retained }
                        && inDeinit.map { $0.direct && $0.runtime && !$0.retained } == true,
                    "alive: \(seen), deinitialising: \(String(describing: inDeinit))")
            }
        }
    }

    // The library's own types the checks read and write.

    private struct ProbeFields {
        var flag = false
        var small: Int16 = 0x55
        var word: Int32 = 0
        var text = ""
        var pair: (UInt8, Double) = (0xAA, 0)
        var object: AnyObject?
    }

    private final class StoredProbe {
        var fields = ProbeFields()
        var tail: UInt16 = 0
    }

    private final class Marker {}

    private class AccessorProbe {
        var log: [String] = []
        var observed = 0 {
            willSet { log.append("willSet \(observed) to \(newValue)") }
            didSet { log.append("didSet \(oldValue) to \(observed)") }
        }
        var backing = ""
        var computed: String {
            get { backing }
            set { backing = newValue + "!" }
        }
        var isEmpty: Bool { backing.isEmpty }
        var overridable = 0
    }

    private final class OverridingProbe: AccessorProbe {
        override var overridable: Int {
            get { super.overridable }
            set { super.overridable = newValue * 10 }
        }
    }

    private final class LivenessProbe {
        let onDeinit: (UnsafeMutableRawPointer) -> Void
        init(onDeinit: @escaping (UnsafeMutableRawPointer) -> Void) { self.onDeinit = onDeinit }
        deinit { onDeinit(Unmanaged.passUnretained(self).toOpaque()) }
    }

#endif
