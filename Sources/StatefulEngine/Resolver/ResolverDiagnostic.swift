// The engine's diagnostic channel: problems it met and recovered from.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A problem the engine detected and recovered from, such as a direct property access that
/// failed its self-check (see ``PropertyAccess``).
public struct ResolverDiagnostic: Hashable, Sendable, CustomStringConvertible {
    /// What happened, in words.
    public let message: String

    init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}

extension StateResolver {
    /// Receives every ``ResolverDiagnostic``, on the thread that met it. By default writes it
    /// to standard error. Set it before the process binds its first value to hear about the
    /// property access it chose (see ``PropertyAccess/current``); the handler may use
    /// resolvers itself.
    public static var diagnosticHandler: @Sendable (ResolverDiagnostic) -> Void {
        get { diagnosticHandlerStorage.withLock { $0 } }
        set { diagnosticHandlerStorage.withLock { $0 = newValue } }
    }

    /// Reports `diagnostic` to ``diagnosticHandler``.
    static func report(_ diagnostic: ResolverDiagnostic) {
        diagnosticHandler(diagnostic)
    }
}

private let diagnosticHandlerStorage = Locked<@Sendable (ResolverDiagnostic) -> Void> { diagnostic in
    let line = "StatefulEngine: \(diagnostic)\n".utf8CString
    _ = line.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
}
