/// Stops the program for a programmer error, with a message that names the mistake and the fix.
///
/// `precondition` drops its message in optimised builds; this prints it in every build, so a
/// misuse is explained where it happens, in release too. Conditions a correct program can meet
/// (a full allocator, no memory) are thrown errors instead.
package func misuse(_ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    fatalError("StatefulControls: misuse: \(message())", file: file, line: line)
}

/// Stops the program on a broken internal invariant (a bug in StatefulControls, not in the
/// caller), printing `message` in every build.
package func internalInconsistency(_ message: @autoclosure () -> String, file: StaticString = #fileID,
                                   line: UInt = #line) -> Never {
    fatalError("StatefulControls: internal inconsistency (please report): \(message())", file: file, line: line)
}
