// The one way the library stops the program: a misuse, a broken invariant, or a resource a
// call that cannot throw ran out of. Every stop prints "StatefulControls: " and what went wrong.

/// Stops the program for a programmer error, with a message that names the mistake and the fix.
///
/// `precondition` drops its message in optimised builds; this prints it in every build, so a
/// misuse is explained where it happens, in release too. Conditions a correct program can meet
/// (a full allocator, no memory) are thrown errors instead
/// (``resourceExhausted(_:file:line:)`` where the call cannot throw).
package func misuse(_ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    fatalError("StatefulControls: misuse: \(message())", file: file, line: line)
}

/// Stops the program on a broken internal invariant (a bug in StatefulControls, not in the
/// caller), printing `message` in every build.
package func internalInconsistency(
    _ message: @autoclosure () -> String, file: StaticString = #fileID,
    line: UInt = #line
) -> Never {
    fatalError("StatefulControls: internal inconsistency (please report): \(message())", file: file, line: line)
}

/// Stops the program when the resolver runs out of a resource (memory, ids) in a call that
/// cannot throw: a condition a correct program can meet, which the throwing API reports as a
/// ``ResolverError``. Where the API cannot throw (a `Control`'s `setValue`, `changedProperties`
/// and `lintRules`, a resolver's creation) the program stops with `message`, in every build,
/// as Swift stops on a failed allocation.
package func resourceExhausted(
    _ message: @autoclosure () -> String, file: StaticString = #fileID,
    line: UInt = #line
) -> Never {
    fatalError("StatefulControls: out of resources: \(message())", file: file, line: line)
}

/// Stops the program for a resolver error met by a call that cannot throw it: a corrupt table
/// is an ``internalInconsistency(_:file:line:)``, anything else (memory, ids) is
/// ``resourceExhausted(_:file:line:)``. `call` names the call, as the message starts.
package func stop(
    for error: ResolverError, in call: @autoclosure () -> String, file: StaticString = #fileID,
    line: UInt = #line
) -> Never {
    if error == .corrupted { internalInconsistency("\(call()): \(error)", file: file, line: line) }
    resourceExhausted("\(call()): \(error)", file: file, line: line)
}
