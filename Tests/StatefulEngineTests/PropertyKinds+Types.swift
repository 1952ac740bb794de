import PropertyKindsSupport
import StatefulEngine

// The declarations of the property-kinds differential test (PropertyKindsDifferentialTests):
// one class per group of kinds, each created twice per case (the subject and its twin).

// MARK: Values

/// A class reference value: compared by identity.
final class Token: CustomStringConvertible, Sendable {
    let id: Int
    init(_ id: Int) { self.id = id }
    /// The default of the class-reference properties: one object, so that the subject's
    /// default and the twin's are the same reference.
    static let zero = Token(0)
    var description: String { "Token(\(id))" }
}

/// Three words: copied by the generic path (not a 1, 2, 4 or 8-byte trivial copy).
struct Triple: Hashable { var a = 0, b = 0, c = 0 }

/// Eight bytes of plain data: copied as one 8-byte word.
struct Pair32: Equatable { var a: Int32 = 0, b: Int32 = 0 }

/// More than four words, with a reference-counted member.
struct Large: Hashable {
    var a = 0, b = 0, c = 0, d = 0
    var name = ""
    var ratio = 0.0
}

enum Mode: Equatable { case off, low, mid, high }

/// Payload cases of several sizes, and an indirect one.
enum Payload: Equatable {
    case none
    case number(Int)
    case pair(String, Double)
    case triple(Triple)
    indirect case nested(Payload, Payload)
}

/// An existential's protocol: values of every representation (inline, out of line, class).
protocol Tagged { var tag: String { get } }
struct SmallTag: Tagged { var n: Int; var tag: String { "small \(n)" } }
struct BigTag: Tagged {
    var a: Int, b = 2, c = 3, d = 4
    var text = "big"
    var tag: String { "big \(a) \(b) \(c) \(d) \(text)" }
}
/// A class-bound protocol: its existential is a reference and a witness table.
protocol TaggedObject: AnyObject, Tagged {}

final class ClassTag: TaggedObject, Sendable {
    let n: Int
    init(_ n: Int) { self.n = n }
    /// The default of the class-bound existentials: one object for the subject and the twin.
    static let zero = ClassTag(0)
    var tag: String { "class \(n) at \(ObjectIdentifier(self).hashValue)" }
}
enum EnumTag: Tagged {
    case one, two(String)
    var tag: String {
        switch self {
        case .one: "enum one"
        case .two(let s): "enum two \(s)"
        }
    }
}

struct Point: Equatable { var x = 0.0, y = 0.0 }
struct Size: Equatable { var width = 0.0, height = 0.0 }
struct Frame: Equatable { var origin = Point(), size = Size() }

// MARK: Stored values

/// Stored properties of a final class: stored in place, written at their offset.
final class FinalStorage {
    var bool = false
    var uint8: UInt8 = 0
    var int16: Int16 = 0
    var int32: Int32 = 0
    var int = 0
    var double = 0.0
    var float: Float = 0
    var triple = Triple()
    var large = Large()
    var string = "initial"
    var object = Token.zero
    var optionalObject: Token?
    var existential: any Tagged = SmallTag(n: 0)
    var any: Any = 0
    var closure: () -> Int = { 0 }
    var optionalInt: Int?
    var optionalString: String?
    var tuple: (Int, String) = (0, "")
    var mode = Mode.off
    var payload = Payload.none
    var array: [Int] = []
    var dictionary: [String: Int] = [:]
    var optionalBool: Bool?
    var optionalUInt8: UInt8?
    var pair32 = Pair32()
    var anyObject: AnyObject = Token.zero
    var classBound: any TaggedObject = ClassTag.zero
    var metatype: Any.Type = Int.self
}

/// The same stored properties in a non-final class: overridable, reached through accessors.
class OpenStorage {
    var bool = false
    var uint8: UInt8 = 0
    var int16: Int16 = 0
    var int32: Int32 = 0
    var int = 0
    var double = 0.0
    var float: Float = 0
    var triple = Triple()
    var large = Large()
    var string = "initial"
    var object = Token.zero
    var optionalObject: Token?
    var existential: any Tagged = SmallTag(n: 0)
    var any: Any = 0
    var closure: () -> Int = { 0 }
    var optionalInt: Int?
    var optionalString: String?
    var tuple: (Int, String) = (0, "")
    var mode = Mode.off
    var payload = Payload.none
    var array: [Int] = []
    var dictionary: [String: Int] = [:]
    var optionalBool: Bool?
    var optionalUInt8: UInt8?
    var pair32 = Pair32()
    var anyObject: AnyObject = Token.zero
    var classBound: any TaggedObject = ClassTag.zero
    var metatype: Any.Type = Int.self
}

// MARK: Observers, computed, lazy, wrappers, weak and unowned

final class Observers {
    var log: [String] = []
    var willOnly = 0 { willSet { log.append("willSet \(willOnly)→\(newValue)") } }
    /// A simple didSet: it does not name oldValue, so Swift does not read the old value.
    var didOnly = 0 { didSet { log.append("didSet →\(didOnly)") } }
    var both = "initial" {
        willSet { log.append("willSet \(both)→\(newValue)") }
        didSet { log.append("didSet \(oldValue)→\(both)") }
    }
    /// Reads the old value and tells a write of the same value apart.
    var readsOld = 0 {
        didSet { log.append(readsOld == oldValue ? "didSet same \(oldValue)" : "didSet \(oldValue)→\(readsOld)") }
    }
    /// Observers on a large struct (written through the setter, the old value copied).
    var largeObserved = Large() {
        willSet { log.append("willSet \(largeObserved.name)→\(newValue.name)") }
        didSet { log.append("didSet \(oldValue.name)→\(largeObserved.name)") }
    }
}

/// An object that reports the end of its life (as the library's views do): the portable access
/// holds it by its lifetime, not by a weak reference, and retains it around each write.
final class LifetimeReporting: ReportsLifetime {
    let lifetime = TargetLifetime()
    var log: [String] = []
    var int = 0
    var string = ""
    var both = "initial" {
        willSet { log.append("willSet \(both)→\(newValue)") }
        didSet { log.append("didSet \(oldValue)→\(both)") }
    }
    deinit { lifetime.end() }
}

/// Clamps to a range: the property holds what the wrapper makes of the value.
@propertyWrapper struct Clamped {
    private var storage: Int
    let range: ClosedRange<Int>
    init(wrappedValue: Int, _ range: ClosedRange<Int>) {
        self.range = range
        storage = min(max(wrappedValue, range.lowerBound), range.upperBound)
    }
    var wrappedValue: Int {
        get { storage }
        set { storage = min(max(newValue, range.lowerBound), range.upperBound) }
    }
}

/// Records every value written; the record is the projected value.
@propertyWrapper struct Recorded<Value> {
    private var value: Value
    private(set) var writes: [Value] = []
    init(wrappedValue: Value) { value = wrappedValue }
    var wrappedValue: Value {
        get { value }
        set {
            value = newValue
            writes.append(newValue)
        }
    }
    var projectedValue: [Value] { writes }
}

final class Accessors {
    var log: [String] = []
    private var backing = 0
    /// Stored as a multiple of ten, read back divided.
    var computed: Int {
        get { backing / 10 }
        set {
            log.append("set \(newValue)")
            backing = newValue * 10
        }
    }
    lazy var lazyValue: String = {
        log.append("lazy init")
        return "lazy"
    }()
    @Clamped(0...50) var clamped = 0
    @Recorded var recorded = "initial"
}

final class WeakHolder {
    weak var ref: Token?
}

final class UnownedHolder {
    unowned var ref: Token
    /// Not reference-counted: the test keeps every object it may hold alive.
    unowned(unsafe) var unsafeRef: Token
    init(_ ref: Token) { (self.ref, unsafeRef) = (ref, ref) }
}

// MARK: Generic classes

final class Box<T> {
    var value: T
    init(_ value: T) { self.value = value }
}

class GenericBase<T> {
    var value: T
    init(_ value: T) { self.value = value }
}

/// A subclass of a generic class: its own stored property's offset is known at run time only.
final class IntSubclass: GenericBase<Int> {
    var own = "own"
    init() { super.init(0) }
}

class PlainBase {
    var name = "base"
    init() {}
}

final class GenericSubclass<T>: PlainBase {
    var extra: T
    init(_ extra: T) {
        self.extra = extra
        super.init()
    }
}

// MARK: Overrides, three deep

class A {
    var log: [String] = []
    var x = 0
    init() {}
}

class B: A {
    override var x: Int { didSet { log.append("B.didSet \(oldValue)→\(x)") } }
}

final class C: B {
    override var x: Int {
        get { super.x }
        set {
            log.append("C.set \(newValue)")
            super.x = newValue
        }
    }
}

// MARK: Paths: struct members, other objects, subscripts

final class Geometry {
    var point = Point()
    var frame = Frame()
}

/// A non-final class whose frame is observed: a member written through the key path runs the
/// frame's observers.
class ObservedGeometry {
    var log: [String] = []
    var frame = Frame() { didSet { log.append("frame \(oldValue.origin.y)→\(frame.origin.y)") } }
    init() {}
}

final class Child {
    var value = 0
    var point = Point()
}

final class Parent {
    let child = Child()
}

final class Grid {
    var log: [String] = []
    private var cells = [0, 0, 0]
    subscript(i: Int) -> Int {
        get { cells[i] }
        set {
            log.append("set [\(i)] \(newValue)")
            cells[i] = newValue
        }
    }
    var items = [10, 20, 30]
    var dictionary: [String: Int] = ["k": 0, "other": 1]
}

// MARK: Another module's classes

/// A subclass here of the other module's open class.
final class LocalSubclass: ForeignOpen {
    override var value: Int { didSet { log.append("LocalSubclass.didSet \(oldValue)→\(value)") } }
    var own = 0
}

// MARK: The main actor, finality

@MainActor final class MainActorModel {
    var log: [String] = []
    var stored = 0
    var observed = "initial" {
        willSet { log.append("willSet \(observed)→\(newValue)") }
        didSet { log.append("didSet \(oldValue)→\(observed)") }
    }
}

/// A final var in a non-final class (stored in place) and a non-final one (accessors).
class Mixed {
    final var finalInOpen = "a"
    var overridable = "b"
    init() {}
}

final class Sealed {
    var plain = "c"
}
