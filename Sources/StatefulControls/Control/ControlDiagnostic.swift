// The controls' diagnostic channel: problems a control met and recovered from.

import Foundation

/// A problem a control detected and recovered from, such as a dependency cycle it stopped.
public struct ControlDiagnostic: Hashable, Sendable, CustomStringConvertible {
    /// What happened, in words.
    public let message: String

    init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}

extension Control {
    /// Receives every ``ControlDiagnostic``. By default writes it to standard error.
    public static var diagnosticHandler: @MainActor (ControlDiagnostic) -> Void = { diagnostic in
        FileHandle.standardError.write(Data("StatefulControls: \(diagnostic)\n".utf8))
    }
}
