// The errors a resolver throws, from the C table's status codes.

internal import CStateResolver

/// An error from the state resolver.
public struct ResolverError: Error, Hashable, Sendable, CustomStringConvertible {
    enum Code: Hashable, Sendable {
        case outOfMemory, corrupted, tooManyTargets, tooManyValues, cycle
    }

    let code: Code

    /// What went wrong, in words.
    public let description: String

    /// The rule table could not allocate memory. Nothing was changed. Also thrown by a bind
    /// past 2²⁴ − 1 custom rules (descriptors with a predicate) held at once: the table keeps a
    /// rule's predicate index in 24 bits.
    public static let outOfMemory = ResolverError(
        code: .outOfMemory,
        description:
            "the state resolver ran out of memory; the rule table is unchanged")

    /// Judy reported a corrupt array: a bug, not a condition to recover from.
    public static let corrupted = ResolverError(
        code: .corrupted,
        description:
            "the state resolver's Judy index reported corruption")

    /// More than 2³² − 1 targets are bound at once (the ids of targets that went are reused).
    public static let tooManyTargets = ResolverError(
        code: .tooManyTargets,
        description:
            "the state resolver ran out of target ids (2^32 - 1 targets bound at once)")

    /// More than 2³² − 3 values are bound at once.
    public static let tooManyValues = ResolverError(
        code: .tooManyValues,
        description:
            "the state resolver holds the maximum number of values (2^32 - 3)")

    /// Applying a state kept changing the state: bound values feed back into the state
    /// factors without settling (a dependency cycle). The apply stopped.
    public static let cycle = ResolverError(
        code: .cycle,
        description:
            "applying the state did not settle: bound values keep changing the state (a dependency cycle); stopped")

    public static func == (lhs: ResolverError, rhs: ResolverError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// Throws the error a C status stands for; returns for success, no match and not found.
    static func check(_ status: csr_status) throws(ResolverError) {
        switch status {
        case CSR_OK, CSR_NO_MATCH, CSR_NOT_FOUND: return
        case CSR_ERR_NOMEM: throw .outOfMemory
        // CSR_ERR_JUDY; and CSR_ERR_INVALID or CSR_ERR_REENTRANT, which only a bug of this
        // module can cause (a predicate that calls back is stopped before it reaches C).
        default: throw .corrupted
        }
    }
}
