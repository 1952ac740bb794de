import Testing
@testable import StatefulEngine
import PropertyKindsSupport

/// A differential test of property kinds: for each kind, a resolver writes a subject's
/// property through whatever path it takes for that kind (see PropertyWriter), and a twin of
/// the same class is written with plain `twin[keyPath:] = value` when the model's winner
/// changes. Both must hold the same value, and log the same observer calls in the same order,
/// after every bind, apply and removal (the driver: PropertyKinds+Harness.swift; the types:
/// PropertyKinds+Types.swift). The test uses only the public API, so it runs the same in every
/// write mode of the resolver.
@Suite("StateResolver: every property kind is written as plain Swift writes it")
struct PropertyKindsDifferentialTests {
    @Test(arguments: storedValues(final: true))
    func storedInAFinalClass(_ kind: KindCase) throws { try kind.run() }

    @Test(arguments: storedValues(final: false))
    func storedInANonFinalClass(_ kind: KindCase) throws { try kind.run() }

    @Test(arguments: accessorKinds)
    func observersComputedLazyWrappersWeakUnowned(_ kind: KindCase) throws { try kind.run() }

    @Test(arguments: genericKinds)
    func genericClasses(_ kind: KindCase) throws { try kind.run() }

    @Test(arguments: overrideKinds)
    func overridesThreeDeep(_ kind: KindCase) throws { try kind.run() }

    @Test(arguments: pathKinds)
    func structMembersOtherObjectsAndSubscripts(_ kind: KindCase) throws { try kind.run() }

    @Test(arguments: foreignKinds)
    func classesOfAnotherModule(_ kind: KindCase) throws { try kind.run() }

    @Test(arguments: finalityKinds)
    func finality(_ kind: KindCase) throws { try kind.run() }

    @MainActor
    @Test func mainActorClasses() throws {
        try Differential(
            "main actor: stored Int", \MainActorModel.stored, make: { MainActorModel() },
            values: Array(1...8)
        ).run()
        try Differential(
            "main actor: observed String", \MainActorModel.observed, make: { MainActorModel() },
            values: Self.strings, trace: { $0.log }
        ).run()
    }

    /// The number of kinds (one per case): at least 40.
    @Test func theKindsAreMany() {
        let all =
            Self.storedValues(final: true) + Self.storedValues(final: false) + Self.accessorKinds + Self.genericKinds
            + Self.overrideKinds + Self.pathKinds + Self.foreignKinds + Self.finalityKinds
        #expect(all.count + 2 >= 40)
        #expect(Set(all.map(\.name)).count == all.count, "each case has its own name")
    }

    // MARK: Comparisons of values that are not Equatable

    static func sameObject<T: AnyObject>(_ a: T, _ b: T) -> Bool { a === b }
    static func sameObject<T: AnyObject>(_ a: T?, _ b: T?) -> Bool { a === b }

    /// Same dynamic type and same tag (a class's tag includes its identity).
    static func sameTagged(_ a: any Tagged, _ b: any Tagged) -> Bool {
        ObjectIdentifier(type(of: a)) == ObjectIdentifier(type(of: b)) && a.tag == b.tag
    }

    /// Tokens by identity, anything else by AnyHashable.
    static func sameAny(_ a: Any, _ b: Any) -> Bool {
        if let a = a as? Token, let b = b as? Token { return a === b }
        if let a = a as? AnyHashable, let b = b as? AnyHashable { return a == b }
        return false
    }

    static let strings = ["one", "two", "three", "four", "five", "a longer string that is stored out of line", "", "eight"]

    static func tokens() -> [Token] { (1...8).map(Token.init) }

    // MARK: Stored values of every size and kind

    /// Each stored kind as a property of a final class (stored in place) or of a non-final one
    /// (reached through accessors).
    static func storedValues(final: Bool) -> [KindCase] {
        let prefix = final ? "final class" : "non-final class"
        func kind<Value: Equatable & SendableMetatype>(
            _ label: String, _ finalPath: ReferenceWritableKeyPath<FinalStorage, Value>,
            _ openPath: ReferenceWritableKeyPath<OpenStorage, Value>,
            _ values: @escaping @Sendable () -> [Value]
        ) -> KindCase {
            kind(label, finalPath, openPath, values, same: ==)
        }
        func kind<Value>(
            _ label: String, _ finalPath: ReferenceWritableKeyPath<FinalStorage, Value>,
            _ openPath: ReferenceWritableKeyPath<OpenStorage, Value>,
            _ values: @escaping @Sendable () -> [Value],
            same: @escaping @Sendable (Value, Value) -> Bool
        ) -> KindCase {
            // A key path is immutable, but its class is not Sendable: captured unchecked.
            nonisolated(unsafe) let (finalPath, openPath) = (finalPath, openPath)
            return KindCase("\(prefix): \(label)") { name in
                if final {
                    try Differential(name, finalPath, make: FinalStorage.init, values: values(), same: same).run()
                } else {
                    try Differential(name, openPath, make: OpenStorage.init, values: values(), same: same).run()
                }
            }
        }
        return [
            kind("Bool", \.bool, \.bool) { [true, false, true, true, false, true, false, true] },
            kind("UInt8", \.uint8, \.uint8) { [1, 2, 3, 255, 5, 6, 7, 128] },
            kind("Int16", \.int16, \.int16) { [1, -2, 3, .max, .min, 6, 7, 8] },
            kind("Int32", \.int32, \.int32) { [1, -2, 3, .max, .min, 6, 7, 8] },
            kind("Int", \.int, \.int) { [1, -2, 3, .max, .min, 6, 7, 8] },
            kind("Double", \.double, \.double) { [1.5, -2, .infinity, 0.1, -0.0, 6, 7, 8] },
            kind("Float", \.float, \.float) { [1.5, -2, .infinity, 0.1, 5, 6, 7, 8] },
            kind("3-word struct", \.triple, \.triple) { (1...8).map { Triple(a: $0, b: -$0, c: $0 * 100) } },
            kind("large struct", \.large, \.large) {
                (1...8).map { Large(a: $0, b: 2, c: 3, d: $0, name: "large \($0) with a heap-allocated name", ratio: Double($0) / 3) }
            },
            kind("String", \.string, \.string) { strings },
            kind("class reference", \.object, \.object, { tokens() }, same: sameObject),
            kind(
                "Optional class reference", \.optionalObject, \.optionalObject,
                {
                    let t = tokens()
                    return [t[0], nil, t[1], t[2], nil, t[3], t[4], t[5]]
                }, same: sameObject),
            kind(
                "any Protocol existential", \.existential, \.existential,
                {
                    [
                        SmallTag(n: 1), BigTag(a: 2), ClassTag(3), EnumTag.one, EnumTag.two("two"), BigTag(a: 6, text: "six"),
                        ClassTag(7), SmallTag(n: 8),
                    ]
                }, same: sameTagged),
            kind(
                "Any", \.any, \.any,
                {
                    [1, "two", 3.0, Triple(a: 4), Token(5), Optional<Int>.none as Any, Large(name: "seven"), [8, 8]]
                }, same: sameAny),
            kind(
                "closure () -> Int", \.closure, \.closure,
                {
                    (1...8).map { n in { n * 11 } }
                }, same: { $0() == $1() }),
            kind("Optional<Int>", \.optionalInt, \.optionalInt) { [1, nil, 3, 0, nil, 6, .max, 8] },
            kind("Optional<String>", \.optionalString, \.optionalString) { ["one", nil, "", "four", nil, "six", "seven", "eight"] },
            kind("tuple (Int, String)", \.tuple, \.tuple, { (1...8).map { ($0, "t\($0)") } }, same: ==),
            kind("enum without payload", \.mode, \.mode) { [.low, .mid, .high, .off, .low, .mid, .high, .low] },
            kind("enum with payloads", \.payload, \.payload) {
                [
                    .number(1), .pair("two", 2), .triple(Triple(a: 3)), .nested(.number(4), .nested(.pair("four", 4), .none)),
                    .none, .number(6), .nested(.triple(Triple(c: 7)), .number(7)), .pair("eight", 8),
                ]
            },
            kind("array", \.array, \.array) { [[1], [2, 2], [], [4, 4, 4, 4], [5], [6], Array(0..<70), [8]] },
            kind("dictionary", \.dictionary, \.dictionary) {
                [["a": 1], [:], ["c": 3, "cc": 33], ["d": 4], ["e": 5], ["f": 6], ["g": 7], ["h": 8]]
            },
            kind("Optional<Bool> (one byte)", \.optionalBool, \.optionalBool) { [true, nil, false, true, nil, false, true, nil] },
            kind("Optional<UInt8> (two bytes)", \.optionalUInt8, \.optionalUInt8) { [1, nil, 0, 255, nil, 6, 7, 8] },
            kind("8-byte struct of two Int32", \.pair32, \.pair32) { (1...8).map { Pair32(a: Int32($0), b: -Int32($0)) } },
            kind("AnyObject", \.anyObject, \.anyObject, { tokens() + [ClassTag(9)] }, same: { $0 === $1 }),
            kind("class-bound existential", \.classBound, \.classBound, { (1...8).map(ClassTag.init) }, same: { $0 === $1 }),
            kind(
                "metatype Any.Type", \.metatype, \.metatype,
                {
                    [String.self, Double.self, Token.self, Large.self, Int.self, Mode.self, [Int].self, Optional<Int>.self]
                }, same: { ObjectIdentifier($0) == ObjectIdentifier($1) }),
        ]
    }

    // MARK: Observers, computed, lazy, wrappers, weak and unowned

    static let accessorKinds: [KindCase] = [
        KindCase("willSet only") {
            try Differential($0, \Observers.willOnly, make: Observers.init, values: Array(1...8), trace: \.log).run()
        },
        KindCase("didSet only (simple, old value not read)") {
            try Differential($0, \Observers.didOnly, make: Observers.init, values: Array(1...8), trace: \.log).run()
        },
        KindCase("willSet and didSet") { try Differential($0, \Observers.both, make: Observers.init, values: strings, trace: \.log).run() },
        KindCase("didSet reading the old value (equal values written)") {
            try Differential($0, \Observers.readsOld, make: Observers.init, values: [1, 1, 2, 2, 0, 3, 3, 4], trace: \.log).run()
        },
        KindCase("willSet and didSet on a large struct") {
            try Differential(
                $0, \Observers.largeObserved, make: Observers.init,
                values: (1...8).map { Large(a: $0, name: "observed \($0)") }, trace: \.log
            ).run()
        },
        KindCase("a target that reports its lifetime: stored Int") {
            try Differential($0, \LifetimeReporting.int, make: LifetimeReporting.init, values: Array(1...8)).run()
        },
        KindCase("a target that reports its lifetime: String") {
            try Differential($0, \LifetimeReporting.string, make: LifetimeReporting.init, values: strings).run()
        },
        KindCase("a target that reports its lifetime: willSet and didSet") {
            try Differential($0, \LifetimeReporting.both, make: LifetimeReporting.init, values: strings, trace: \.log).run()
        },
        KindCase("computed (get/set over a stored property)") {
            try Differential($0, \Accessors.computed, make: Accessors.init, values: Array(1...8), trace: \.log).run()
        },
        KindCase("lazy var") { try Differential($0, \Accessors.lazyValue, make: Accessors.init, values: strings, trace: \.log).run() },
        KindCase("property wrapper (struct, clamping)") {
            try Differential($0, \Accessors.clamped, make: Accessors.init, values: [10, 80, -5, 50, 51, 0, 49, 1000]).run()
        },
        KindCase("property wrapper with a projected value") {
            try Differential($0, \Accessors.recorded, make: Accessors.init, values: strings, trace: { $0.$recorded }).run()
        },
        KindCase("weak var (its object dying between applies)") {
            let t = tokens()
            try Differential(
                $0, \WeakHolder.ref, make: WeakHolder.init, values: [t[0], nil, t[1], t[2], nil, t[3], t[4], t[5]],
                same: sameObject,
                interlude: { subject, twin in
                    // An object only the property refers to: both read nil once it is gone.
                    do {
                        let transient = Token(99)
                        subject.ref = transient
                        twin.ref = transient
                    }
                    #expect(subject.ref == nil && twin.ref == nil)
                }
            ).run()
        },
        KindCase("unowned var (objects kept alive by the test)") {
            let keeper = Token(0)
            try Differential($0, \UnownedHolder.ref, make: { UnownedHolder(keeper) }, values: tokens(), same: sameObject).run()
            withExtendedLifetime(keeper) {}
        },
        KindCase("unowned(unsafe) var (objects kept alive by the test)") {
            let keeper = Token(0), values = tokens()
            try Differential($0, \UnownedHolder.unsafeRef, make: { UnownedHolder(keeper) }, values: values, same: sameObject).run()
            withExtendedLifetime((keeper, values)) {}
        },
    ]

    // MARK: Generic classes

    static let genericKinds: [KindCase] = [
        KindCase("final class Box<Int>.value") { try Differential($0, \Box<Int>.value, make: { Box(0) }, values: Array(1...8)).run() },
        KindCase("final class Box<String>.value") {
            try Differential($0, \Box<String>.value, make: { Box("initial") }, values: strings).run()
        },
        KindCase("final class Box<Large>.value") {
            try Differential($0, \Box<Large>.value, make: { Box(Large()) }, values: (1...8).map { Large(a: $0, name: "box \($0)") }).run()
        },
        KindCase("non-final GenericBase<String>.value") {
            try Differential($0, \GenericBase<String>.value, make: { GenericBase("initial") }, values: strings).run()
        },
        KindCase("\\GenericBase<Int>.value on an IntSubclass") {
            try Differential($0, \GenericBase<Int>.value, make: { IntSubclass() }, values: Array(1...8)).run()
        },
        KindCase("subclass of GenericBase<Int>: the inherited generic var") {
            try Differential($0, \IntSubclass.value, make: IntSubclass.init, values: Array(1...8)).run()
        },
        KindCase("subclass of GenericBase<Int>: its own var") {
            try Differential($0, \IntSubclass.own, make: IntSubclass.init, values: strings).run()
        },
        KindCase("GenericSubclass<Double> of a plain class: its own var") {
            try Differential($0, \GenericSubclass<Double>.extra, make: { GenericSubclass(0.5) }, values: (1...8).map(Double.init)).run()
        },
        KindCase("GenericSubclass<String> of a plain class: the inherited var") {
            try Differential($0, \GenericSubclass<String>.name, make: { GenericSubclass("extra") }, values: strings).run()
        },
    ]

    // MARK: Overrides, three deep

    static let overrideKinds: [KindCase] = [
        KindCase("\\A.x on an A") { try Differential($0, \A.x, make: { A() }, values: Array(1...8), trace: \.log).run() },
        KindCase("\\A.x on a B (didSet override)") { try Differential($0, \A.x, make: { B() }, values: Array(1...8), trace: \.log).run() },
        KindCase("\\A.x on a C (get/set override)") { try Differential($0, \A.x, make: { C() }, values: Array(1...8), trace: \.log).run() },
        KindCase("\\B.x on a B") { try Differential($0, \B.x, make: { B() }, values: Array(1...8), trace: \.log).run() },
        KindCase("\\B.x on a C") { try Differential($0, \B.x, make: { C() }, values: Array(1...8), trace: \.log).run() },
        KindCase("\\C.x on a C") { try Differential($0, \C.x, make: { C() }, values: Array(1...8), trace: \.log).run() },
    ]

    // MARK: Paths: struct members, other objects, subscripts

    static let pathKinds: [KindCase] = [
        KindCase("struct member \\Geometry.point.x") {
            try Differential($0, \Geometry.point.x, make: Geometry.init, values: (1...8).map(Double.init)).run()
        },
        KindCase("two levels deep \\Geometry.frame.origin.y") {
            try Differential($0, \Geometry.frame.origin.y, make: Geometry.init, values: (1...8).map(Double.init)).run()
        },
        KindCase("member of an observed struct property \\ObservedGeometry.frame.origin.y") {
            try Differential(
                $0, \ObservedGeometry.frame.origin.y, make: ObservedGeometry.init, values: (1...8).map(Double.init),
                trace: \.log
            ).run()
        },
        KindCase("through another object \\Parent.child.value") {
            try Differential($0, \Parent.child.value, make: Parent.init, values: Array(1...8)).run()
        },
        KindCase("through another object and a struct \\Parent.child.point.y") {
            try Differential($0, \Parent.child.point.y, make: Parent.init, values: (1...8).map(Double.init)).run()
        },
        KindCase("class subscript \\Grid.[1]") {
            try Differential($0, \Grid.[1], make: Grid.init, values: Array(1...8), trace: \.log).run()
        },
        KindCase("array element \\Grid.items[1]") { try Differential($0, \Grid.items[1], make: Grid.init, values: Array(1...8)).run() },
        KindCase("dictionary entry \\Grid.dictionary[\"k\"] (nil removes it)") {
            try Differential(
                $0, \Grid.dictionary["k"], make: Grid.init, values: [1, nil, 3, 4, nil, 6, 7, 8],
                trace: { $0.dictionary.keys.sorted() }
            ).run()
        },
    ]

    // MARK: Another module's classes

    static let foreignKinds: [KindCase] = [
        KindCase("other module, final class: stored") {
            try Differential($0, \ForeignFinal.stored, make: ForeignFinal.init, values: Array(1...8), trace: \.log).run()
        },
        KindCase("other module, final class: observed") {
            try Differential($0, \ForeignFinal.observed, make: ForeignFinal.init, values: strings, trace: \.log).run()
        },
        KindCase("other module, final class: computed") {
            try Differential($0, \ForeignFinal.computed, make: ForeignFinal.init, values: Array(1...8), trace: \.log).run()
        },
        KindCase("other module, open class subclassed here: overridden open var") {
            try Differential($0, \LocalSubclass.value, make: LocalSubclass.init, values: Array(1...8), trace: \.log).run()
        },
        KindCase("other module, open class subclassed here: \\ForeignOpen.value on the subclass") {
            try Differential($0, \ForeignOpen.value, make: { LocalSubclass() }, values: Array(1...8), trace: \.log).run()
        },
        KindCase("other module, open class subclassed here: inherited observed var") {
            try Differential(
                $0, \LocalSubclass.observed, make: LocalSubclass.init, values: (1...8).map { Double($0) / 4 },
                trace: \.log
            ).run()
        },
        KindCase("other module, open class subclassed here: inherited final var") {
            try Differential($0, \LocalSubclass.fixed, make: LocalSubclass.init, values: strings).run()
        },
    ]

    // MARK: Finality

    static let finalityKinds: [KindCase] = [
        KindCase("final var in a non-final class") {
            try Differential($0, \Mixed.finalInOpen, make: Mixed.init, values: strings).run()
        },
        KindCase("var of a final class") { try Differential($0, \Sealed.plain, make: Sealed.init, values: strings).run() },
        KindCase("non-final var of a non-final class") {
            try Differential($0, \Mixed.overridable, make: Mixed.init, values: strings).run()
        },
    ]
}
