// Bound properties: the ones a resolver holds, and its diff between two states as bound
// properties, for a client that sends changes.

internal import CStateResolver

/// One bound property: a target and the key path its values are bound to.
///
/// Two bound properties are equal when their targets are the same object and their key paths
/// are equal.
public struct BoundProperty: Hashable, CustomStringConvertible {
    /// The object whose property is bound.
    public let target: AnyObject
    /// The key path the property was first bound with (see "One binding per property").
    public let keyPath: AnyKeyPath

    /// Creates the bound property `keyPath` of `target`.
    public init(target: AnyObject, keyPath: AnyKeyPath) {
        (self.target, self.keyPath) = (target, keyPath)
    }

    /// Whether both name the same property of the same object.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.target === rhs.target && lhs.keyPath == rhs.keyPath
    }

    /// Hashes the target's identity and the key path.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(target))
        hasher.combine(keyPath)
    }

    /// The target's type and the key path.
    public var description: String { "\(type(of: target)) \(keyPath)" }
}

extension StateResolver {
    /// Every bound property whose target is alive, in the order ``apply(_:)`` writes them, each
    /// named by the key path its first binding used: what an inspector lists, explaining each
    /// with ``explain(_:in:)``. Nothing is resolved or written.
    ///
    /// - Complexity: O(*n*) in the bound properties, plus sorting each target's few.
    public var boundProperties: [BoundProperty] {
        checkNotEvaluating("boundProperties")
        return bindings.inKeyOrder.compactMap { binding in
            binding.target.object.map { BoundProperty(target: $0, keyPath: binding.writer.keyPath) }
        }
    }

    /// The bound properties whose value differs between `old` and `new`: what ``apply(_:)``
    /// writes when it moves from `old` to `new`, in the order it writes them — the resolver's
    /// diff. Deallocated targets are left out; nothing is written.
    ///
    /// A server-rendered UI sends these properties after a state change rather than the whole
    /// page: read the values from the targets after the apply.
    ///
    /// - Throws: ``ResolverError/outOfMemory`` when the table has no memory for the diff
    ///   (nothing changed).
    /// - Complexity: O(*c*) in the properties that change when the pair of states was diffed
    ///   before (by an apply or by this call); O(*n*) in the bound properties the first time.
    public func changedProperties(from old: ControlState, to new: ControlState) throws(ResolverError) -> [BoundProperty] {
        checkNotEvaluating("changedProperties(from:to:)")
        detachDiffReader()  // a new diff may free the one an apply is reading
        var pointer: UnsafePointer<csr_change>?
        var count = 0
        try ResolverError.check(evaluating { csr_diff(table, tableState(old), tableState(new), &pointer, &count) })
        return UnsafeBufferPointer(start: pointer, count: count).compactMap { change in
            guard let binding = bindings.binding(inSlot: change.slot)?.takeUnretainedValue(), let object = binding.target.object else {
                return nil
            }
            return BoundProperty(target: object, keyPath: binding.writer.keyPath)
        }
    }
}
