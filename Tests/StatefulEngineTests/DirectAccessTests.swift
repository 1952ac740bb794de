// The direct property access's internals: what it reads from key paths, how it writes, how it
// tells a dead target, and its self-check. Compiled where the direct access is (the gate of
// PropertyAccess.selectStrategy); its behaviour through the resolver is tested in both modes
// by every other suite.
#if os(Linux) && arch(x86_64) && canImport(Glibc) && !_runtime(_ObjC) && !STATEFULCONTROLS_PORTABLE_ONLY
    import Testing
    @testable import StatefulEngine
    import CSwiftRuntime
    import Glibc

    /// An object whose stored property an `inout` argument accesses, and a call during the
    /// access that the optimiser cannot see through: the access stays tracked in every build.
    final class AccessHolder: @unchecked Sendable { var value = 0 }
    let accessHolder = AccessHolder()
    nonisolated(unsafe) var probeAccesses: () -> Bool = { accessesInProgress() }
    @inline(never) func callDuringAnAccess(_ value: inout Int) -> Bool { probeAccesses() }

    @Suite("The direct property access", .enabled(if: PropertyAccess.current == .direct, "this process uses the portable access"))
    struct DirectAccessTests {
        /// A class others derive from: its properties are stored in place only when `final` (an
        /// overridable property is reached through its accessors, by key paths too).
        class Base {
            final var stored = 0
            var overridable = 0
            var observed = 0 { didSet { observedWrites += 1 } }
            var observedWrites = 0
            var backing = 0
            var computed: Int {
                get { backing }
                set { backing = newValue }
            }
            final var point = (x: 0, y: 0)
            final var child: Child = Child()
            final var items = [0, 0]
            var overridden = 0
            let label = Label()
        }

        final class Child { var stored = 0 }
        final class Label { var text = "" }

        final class Derived: Base {
            var own = "a"
            override var overridden: Int {
                get { super.overridden }
                set { super.overridden = newValue * 10 }
            }
        }

        /// Writes `value` with `writer`, as an apply does (the box borrowed, stored values written
        /// by the loop: trivial ones copied, others assigned through their value witness).
        func write<Value>(_ writer: AnyPropertyWriter, to target: AnyObject, _ value: Value) {
            let box = ValueBox(value)
            withExtendedLifetime(box) {
                writer.writeInline(to: target, ValueSource(box: box))
            }
        }

        func writer<Target: AnyObject, Value>(
            _ keyPath: ReferenceWritableKeyPath<Target, Value>, _ value: Value,
            on targetClass: AnyClass = Derived.self
        ) -> DirectPropertyWriter<Target, Value>? {
            DirectPropertyWriter(keyPath, targetClass: targetClass, box: ValueBox(value))
        }

        @Test func storedPropertiesAreWrittenInPlaceComputedOnesThroughTheirSetter() throws {
            let target = Derived()
            let stored = try #require(writer(\Derived.stored, 1))
            let own = try #require(writer(\Derived.own, "b"))
            let nested = try #require(writer(\Derived.point.y, 7))
            let observed = try #require(writer(\Derived.observed, 2))
            let computed = try #require(writer(\Derived.computed, 3))
            let overridable = try #require(writer(\Derived.overridable, 4))
            #expect(stored.writesInPlace && own.writesInPlace && nested.writesInPlace)
            #expect(stored.trivialCopy != nil && own.trivialCopy == nil)
            #expect(own.inPlaceAssignment != nil && nested.inPlaceAssignment == nil && stored.inPlaceAssignment == nil)
            #expect(observed.inPlaceAssignment == nil && computed.inPlaceAssignment == nil)
            #expect(!observed.writesInPlace && !computed.writesInPlace && !overridable.writesInPlace)
            // A path through another object and a subscript are the closures' (see DirectAccess.writer).
            #expect(writer(\Derived.child.stored, 5) == nil && writer(\Derived.items[1], 5) == nil)
            for _ in 0..<2 {
                write(stored, to: target, 10)
                write(own, to: target, "c")
                write(nested, to: target, 70)
                write(observed, to: target, 20)
                write(computed, to: target, 30)
                write(overridable, to: target, 40)
            }
            #expect(target.stored == 10 && target.own == "c" && target.point == (0, 70))
            #expect(target.observed == 20 && target.observedWrites == 2 && target.computed == 30 && target.overridable == 40)
        }

        final class HolderOfObject {
            var object: Derived?
            var observed: Derived? { didSet { observations += 1 } }
            var observations = 0
        }

        /// A direct write releases the value it replaces; a setter's caller keeps its value.
        @Test func aWriteInPlaceReleasesTheValueItReplaces() throws {
            weak var released: Derived?
            let holder = HolderOfObject()
            let inPlace = try #require(writer(\HolderOfObject.object, nil, on: HolderOfObject.self))
            let setter = try #require(writer(\HolderOfObject.observed, nil, on: HolderOfObject.self))
            #expect(inPlace.writesInPlace && inPlace.inPlaceAssignment != nil && !setter.writesInPlace)
            do {
                let first = Derived()
                released = first
                write(inPlace, to: holder, Optional(first))
            }
            write(inPlace, to: holder, Optional(Derived()))
            #expect(released == nil && holder.object != nil)
            let kept = Derived()
            write(setter, to: holder, Optional(kept))
            write(setter, to: holder, Derived?.none)
            #expect(holder.observed == nil && holder.observations == 2)
        }

        /// A class that overrides a property: the base's key path calls the override's setter.
        final class Overriding: Base {
            override var overridable: Int {
                get { super.overridable }
                set { super.overridable = newValue + 100 }
            }
        }

        @Test func aSetterThroughTheBaseClassKeyPathIsTheOverride() throws {
            let target = Overriding()
            write(try #require(writer(\Base.overridable, 0, on: Overriding.self)), to: target, 1)
            #expect(target.overridable == 101)
        }

        /// Reports, from its deinit, whether the liveness read sees it deallocating.
        final class DeinitProbe {
            let report: (Bool) -> Void
            init(report: @escaping (Bool) -> Void) { self.report = report }
            deinit {
                let address = Unmanaged.passUnretained(self).toOpaque()
                report(isDeallocating(address) && swift_isDeallocating(address))
            }
        }

        /// The liveness read reads the reference counts inline, or through the side table a weak
        /// reference gives the object; both must agree with the runtime.
        @Test(arguments: [false, true])
        func theLivenessReadSeesDeinitialisationWithAndWithoutASideTable(weaklyReferenced: Bool) {
            nonisolated(unsafe) var seenInDeinit: Bool?
            var probe: DeinitProbe? = DeinitProbe { seenInDeinit = $0 }
            weak var weakProbe: DeinitProbe?
            if weaklyReferenced { weakProbe = probe }
            let address = Unmanaged.passUnretained(probe!).toOpaque()
            #expect(!isDeallocating(address))
            #expect(isDeallocating(address) == swift_isDeallocating(address))
            probe = nil
            #expect(seenInDeinit == true && weakProbe == nil)
        }

        /// A reference taken and released on the counts inline (or by the runtime, with a side
        /// table) moves the runtime's own count; none is taken once deinitialisation began.
        @Test(arguments: [false, true])
        func referencesTakenAndReleasedAreTheRuntimes(weaklyReferenced: Bool) {
            final class RetainProbe {
                var onDeinit: (UnsafeMutableRawPointer) -> Void = { _ in }
                deinit { onDeinit(Unmanaged.passUnretained(self).toOpaque()) }
            }
            nonisolated(unsafe) var takenInDeinit: Bool?
            var probe: RetainProbe? = RetainProbe()
            probe!.onDeinit = { takenInDeinit = tryRetain($0) }
            weak var weakProbe: RetainProbe?
            if weaklyReferenced { weakProbe = probe }
            let address = Unmanaged.passUnretained(probe!).toOpaque()
            let count = swift_retainCount(address)
            for _ in 0..<3 { #expect(tryRetain(address)) }
            #expect(swift_retainCount(address) == count + 3)
            for _ in 0..<3 { release(address) }
            #expect(swift_retainCount(address) == count)
            probe = nil
            #expect(takenInDeinit == false && weakProbe == nil)
        }

        /// The runtime's list of this thread's tracked accesses is found, and read: an access in
        /// progress here (an `inout` argument of a class's stored property), none after it.
        @Test func theAccessListIsFoundAndRead() {
            #expect(swiftrt_find_access_list() && swiftrt_access_list_found())
            #expect(!accessesInProgress())
            #expect(callDuringAnAccess(&accessHolder.value))
            #expect(!accessesInProgress())
        }

        /// The property `keyPath` leads to from a `Derived`.
        func path<Root, Value>(_ keyPath: ReferenceWritableKeyPath<Root, Value>) -> PropertyPath {
            DirectAccess().property(keyPath, valueType: Value.self, rootClass: Derived.self)
        }

        @Test func keyPathsFromASubclassLeadToTheSamePropertyAsFromItsBase() {
            #expect(path(\Base.overridable) == path(\Derived.overridable))
            #expect(path(\Base.stored) == path(\Derived.stored))
            #expect(path(\Base.observed) == path(\Derived.observed))
            #expect(path(\Base.computed) == path(\Derived.computed))
            #expect(path(\Base.overridden) == path(\Derived.overridden))  // a final override, resolved by vtable
            #expect(path(\Base.label.text) == path(\Derived.label.text))
            #expect(path(\Base.point.y) == path(\Derived.point.y))
            for property in [
                path(\Base.overridable), path(\Base.stored), path(\Base.observed), path(\Base.label.text),
                path(\Base.point.y),
            ] {
                #expect(property.isCanonical)
            }
        }

        @Test func differentPropertiesStayApart() {
            let all = [
                path(\Base.overridable), path(\Base.stored), path(\Base.observed), path(\Base.computed),
                path(\Base.overridden), path(\Derived.own), path(\Base.point.x), path(\Base.point.y),
                path(\Base.label.text), path(\Label.text),
            ]
            #expect(Set(all).count == all.count)
            // A subscript with an argument is compared as a key path: same index, same path.
            #expect(!path(\Base.items[0]).isCanonical)
            #expect(path(\Base.items[0]) == path(\Base.items[0]))
            #expect(path(\Base.items[0]) != path(\Base.items[1]))
        }

        // MARK: The strict reader

        protocol HasValue: AnyObject { var value: Int { get set } }
        final class Implementation: HasValue { var value = 0; var next: Implementation? }
        static func requirement<T: HasValue>(_: T.Type) -> ReferenceWritableKeyPath<T, Int> { \T.value }

        @Test func keyPathsWithArgumentsOrRequirementsAreRefused() {
            #expect(KeyPathComponent.components(of: \Base.items[0]) == nil)
            #expect(KeyPathComponent.components(of: Self.requirement(Implementation.self)) == nil)
            #expect(
                KeyPathComponent.components(of: \Implementation.next?.value)?.map(\.kind)
                    == [.classStored, .optional, .classStored, .optional])
        }

        /// The components of a copy of `keyPath`'s buffer with `change` applied to its words (the
        /// copy keeps the buffer's alignment).
        func components(ofCopyOf keyPath: AnyKeyPath, _ change: (UnsafeMutablePointer<UInt32>) -> Void) -> [KeyPathComponent]? {
            let buffer = KeyPathComponent.buffer(of: keyPath)
            let bytes = 8 + Int(buffer.load(as: UInt32.self) & 0x00FF_FFFF)
            let misalignment = Int(bitPattern: buffer) & 7
            let copy = UnsafeMutableRawPointer.allocate(byteCount: bytes + misalignment, alignment: 8)
            defer { copy.deallocate() }
            (copy + misalignment).copyMemory(from: buffer, byteCount: bytes)
            change((copy + misalignment).assumingMemoryBound(to: UInt32.self))
            return withExtendedLifetime(keyPath) { KeyPathComponent.components(inBuffer: copy + misalignment) }
        }

        @Test func everyFlagItDoesNotKnowRefusesTheKeyPath() {
            let stored: AnyKeyPath = \Derived.stored, computed: AnyKeyPath = \Base.observed
            let optional: AnyKeyPath = \Implementation.next?.value
            // Unchanged copies read as the originals.
            #expect(components(ofCopyOf: stored) { _ in }?.map(\.identifier) == KeyPathComponent.components(of: stored)?.map(\.identifier))
            #expect(
                components(ofCopyOf: computed) { _ in }?.map(\.identifier) == KeyPathComponent.components(of: computed)?.map(\.identifier))
            // The buffer header's reserved bits.
            for bit in 24..<29 {
                #expect(components(ofCopyOf: stored) { $0[0] |= 1 << bit } == nil, "buffer bit \(bit)")
            }
            // A computed component: every flag but mutating and settable (id by stored property, by
            // vtable offset, arguments, instantiated from external, id resolution, unused bits).
            for bit in 0..<22 {
                #expect(components(ofCopyOf: computed) { $0[2] |= 1 << bit } == nil, "computed bit \(bit)")
            }
            // Stored: an unresolved offset; an external or unknown kind.
            #expect(components(ofCopyOf: stored) { $0[2] = $0[2] & ~0x7F_FFFF | 0x7F_FFFD } == nil)
            #expect(components(ofCopyOf: stored) { $0[2] = $0[2] & ~0x7F00_0000 } == nil)
            #expect(components(ofCopyOf: stored) { $0[2] = $0[2] & ~0x7F00_0000 | 5 << 24 } == nil)
            // Optional: a payload beyond chain, wrap and force.
            #expect(
                components(ofCopyOf: optional) { header in
                    let words = Int(header[0] & 0x00FF_FFFF) / 4
                    for index in 2..<(2 + words) where header[index] >> 24 == 4 { header[index] |= 3 }
                } == nil)
        }

        // MARK: The self-check

        @Test func theSelfCheckPassesHere() {
            #expect(DirectAccessSelfCheck.failures() == [])
        }

        @Test(arguments: DirectAccessSelfCheck.Assumption.allCases)
        func aFailedAssumptionIsNamed(_ assumption: DirectAccessSelfCheck.Assumption) {
            let failures = DirectAccessSelfCheck.failures(injecting: assumption)
            #expect(failures.count == 1 && failures.first?.hasPrefix(assumption.rawValue) == true, "\(failures)")
        }

        @Test func theDirectAccessIsChosenUnlessTurnedOff() {
            for variable in [nil, "", "0"] {
                let selection = PropertyAccess.selectStrategy(portableVariable: variable)
                #expect(selection.0.access == .direct && selection.1 == nil)
            }
        }

        /// A whole process whose self-check fails: it says so once, and binds through the portable
        /// access from its first resolver on. The handler that hears it uses a resolver itself.
        @Test func aProcessWhoseSelfCheckFailsUsesThePortableAccessAndSaysSoOnce() async {
            let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
                unsetenv(PropertyAccess.portableEnvironmentVariable)  // when the suite runs portable
                DirectAccessSelfCheck.injectedFault = .storedOffsets
                StateResolver.diagnosticHandler = { diagnostic in
                    let resolver = StateResolver(), target = Derived()
                    try? resolver.setValue(1, for: \.stored, of: target, when: .containing(.selected))
                    let line = "StatefulEngine: \(diagnostic)\n"
                    _ = line.withCString { Glibc.write(2, $0, strlen($0)) }
                }
                let resolver = StateResolver(), target = Derived(), other = StateResolver()
                try? resolver.setValue(5, for: \.stored, of: target, when: .containing(.selected))
                try? other.setValue("six", for: \.own, of: target, when: .containing(.selected))
                _ = try? resolver.apply(.selected)
                if PropertyAccess.current != .portable || target.stored != 5 { exit(1) }
                // A key path from another root is another binding on the portable access.
                try? resolver.setValue(7, for: \Base.stored, of: target as Base, when: .containing(.selected, priority: 2000))
                if resolver.bindings.count != 2 { exit(2) }
            }
            let errors = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
            let lines = errors.split(separator: "\n").filter { $0.hasPrefix("StatefulEngine: ") }
            #expect(lines.count == 1, "\(errors)")
            #expect(lines.first?.contains(DirectAccessSelfCheck.Assumption.storedOffsets.rawValue) == true)
            #expect(lines.first?.contains("portable") == true)
        }
    }
#endif
