// The choice between the two ways a resolver reaches bound properties: the direct path, which
// reads private layouts of the Swift runtime, and the portable path, plain Swift.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// How resolvers read and write the properties values are bound to.
///
/// Both strategies write the same values, call the same setters and observers in the same
/// order, check exclusivity as an assignment does (a write while the program modifies the
/// property stops it with Swift's "Simultaneous accesses"), and never write a target whose
/// `deinit` has begun, on whatever thread its last reference went; they differ in cost and in
/// one rule (see "One binding per property" in the engine's documentation). The two:
///
/// - ``direct`` reads private layouts of the Swift runtime: the key path object's buffer (a
///   stored property's offset, a computed property's accessors), class metadata and vtables,
///   a type's value witness table, the object's reference counts, and the calling convention
///   of key path accessors. A bound value is then assigned at its property's offset or handed
///   to its setter without the standard library's key path machinery, and a target is held
///   without a weak reference (a strong reference is taken for each write, unless the
///   target's `deinit` has begun).
///   These layouts are the runtime's, not API: the direct path is compiled only where they
///   were verified — Linux on x86_64 with glibc, where this project's tests run — and is
///   checked against the portable path once per process, before its first use.
/// - ``portable`` is plain Swift: a bound value is written with the caller's assignment
///   (`target[keyPath: keyPath] = value` in the code that bound it, which the optimiser turns
///   into `target.property = value` for a key path literal), a custom state read with
///   `target[keyPath: keyPath]`, and a target is held weakly. Its cost per value written is
///   the weak reference's (the target's retain and release take the runtime's slow path) and
///   the assignment's exclusivity check; a key path that is not a literal where it is bound is
///   walked by the standard library, with an allocation (BENCHMARKS.md, "The portable property
///   access").
///
/// A process uses one strategy from its first binding on: ``current``.
public enum PropertyAccess: Sendable, Hashable, CustomStringConvertible {
    /// Layout-reading writes, compiled and self-checked where verified.
    case direct
    /// Plain Swift writes, everywhere.
    case portable

    /// The strategy of this process, decided once, the first time a resolver needs it:
    /// ``portable`` where the direct path is not compiled, when the environment variable
    /// `STATEFULCONTROLS_PORTABLE` is `1`, or when the direct path's self-check fails (which
    /// is reported once through ``StateResolver/diagnosticHandler``); ``direct`` otherwise.
    public static var current: PropertyAccess { processStrategy.access }

    /// The environment variable that forces ``portable`` for a process when set to `1`
    /// (`0` or unset: ``direct`` where available).
    public static let portableEnvironmentVariable = "STATEFULCONTROLS_PORTABLE"

    public var description: String { self == .direct ? "direct" : "portable" }
}

/// What a strategy makes for the resolver: property identities, writers and readers.
protocol PropertyAccessStrategy: Sendable {
    var access: PropertyAccess { get }

    /// The identity of the property `keyPath` leads to from a target of class `rootClass`.
    func property<Value>(_ keyPath: AnyKeyPath, valueType: Value.Type, rootClass: AnyClass) -> PropertyPath

    /// The writer of `keyPath` on targets of class `targetClass`; `box` is a box of the values
    /// it writes; `accessors`, made by the caller's code, go through the key path there.
    func writer<Target: AnyObject, Value>(
        _ keyPath: ReferenceWritableKeyPath<Target, Value>, targetClass: AnyClass, box: ValueBox<Value>,
        accessors: KeyPathAccessors<Target, Value>
    ) -> AnyPropertyWriter

    /// A reader of `keyPath` on objects of class `rootClass`.
    func reader<Root: AnyObject>(_ keyPath: KeyPath<Root, Bool>, rootClass: AnyClass) -> (AnyObject) -> Bool
}

/// The strategy every resolver of this process uses (see ``PropertyAccess/current``). Why it is
/// not the direct one, when something went wrong, is reported the first time it is asked for,
/// after the choice is made (a diagnostic handler may then use a resolver itself).
var processStrategy: any PropertyAccessStrategy {
    let (strategy, diagnostic) = processSelection
    if let diagnostic,
        pendingSelectionReport.withLock({ pending in
            defer { pending = false }; return pending
        })
    {
        StateResolver.report(diagnostic)
    }
    return strategy
}

/// ``processStrategy``'s access, read once, for each bind of a new target: the strategy's getter
/// copies an existential and checks for a report each time. (Without the report: its handler
/// may bind, which would ask for this value while it is being made. A bind reports through
/// the strategy's getter when it looks its key path up.)
let processAccess = processSelection.0.access

private let processSelection = PropertyAccess.selectStrategy(
    portableVariable: getenv(PropertyAccess.portableEnvironmentVariable).map { String(cString: $0) })
private let pendingSelectionReport = Locked(true)

extension PropertyAccess {
    /// The strategy for a process whose environment sets `STATEFULCONTROLS_PORTABLE` to
    /// `portableVariable`: the direct one if it is compiled, not turned off, and passes its
    /// self-check; with why not, when something went wrong.
    static func selectStrategy(portableVariable: String?) -> (any PropertyAccessStrategy, ResolverDiagnostic?) {
        switch portableVariable {
        case nil, "", "0": break
        case "1": return (PortableAccess(), nil)
        case let value?:
            return (
                PortableAccess(),
                ResolverDiagnostic(
                    "\(portableEnvironmentVariable)=\(value) is neither 0 nor 1: this process uses the portable property access")
            )
        }
        // The gate: where the runtime layouts the direct path reads were verified. The same
        // condition opens every file of PropertyAccess/Direct (and CSwiftRuntime's, in C).
        #if os(Linux) && arch(x86_64) && canImport(Glibc) && !_runtime(_ObjC) && !STATEFULCONTROLS_PORTABLE_ONLY
            let failures = DirectAccessSelfCheck.failures(injecting: DirectAccessSelfCheck.injectedFault)
            guard failures.isEmpty else {
                return (
                    PortableAccess(),
                    ResolverDiagnostic(
                        "the direct property access failed its start-up self-check (\(failures.joined(separator: "; "))): this process uses the portable property access"
                    )
                )
            }
            return (DirectAccess(), nil)
        #else
            return (PortableAccess(), nil)
        #endif
    }
}

/// A reader of the Bool at `keyPath` of objects of class `rootClass` (a subclass of `Root`),
/// as the process's property access reads: for the controls module's custom states, read on
/// every state evaluation.
package func boolPropertyReader<Root: AnyObject>(_ keyPath: KeyPath<Root, Bool>, rootClass: AnyClass) -> (AnyObject) -> Bool {
    processStrategy.reader(keyPath, rootClass: rootClass)
}
