/// A closure registered on a control, as UIKit's `UIAction`.
///
/// Actions are identified by their ``identifier``: adding an action with the identifier of one
/// already registered replaces it.
@MainActor
public final class Action {
    /// An action's identity.
    public struct Identifier: Hashable, Sendable, RawRepresentable, ExpressibleByStringLiteral {
        /// The identifier as text.
        public let rawValue: String
        /// Creates an identifier.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// Creates an identifier from a literal.
        public init(stringLiteral value: String) { rawValue = value }
    }

    private static var nextIdentifier = 0

    /// The action's identity.
    public let identifier: Identifier

    /// The control that sent the action, while its handler runs.
    public private(set) weak var sender: Control?

    /// The event being delivered, while the handler runs.
    public private(set) var event: Event?

    private let handler: @MainActor (Action) -> Void

    /// Creates an action; without an identifier it gets a unique one.
    ///
    /// Stops the program (a programmer error, in release builds too) when `identifier` is
    /// empty: pass nil for a unique one.
    public init(identifier: Identifier? = nil, handler: @escaping @MainActor (Action) -> Void) {
        if let identifier {
            if identifier.rawValue.isEmpty {
                misuse("Action(identifier: \"\"): an action identifier names the action; pass a non-empty one, or nil for a unique one")
            }
            self.identifier = identifier
        } else {
            Self.nextIdentifier += 1
            self.identifier = Identifier(rawValue: "action.\(Self.nextIdentifier)")
        }
        self.handler = handler
    }

    private func perform(_ sender: Control, _ event: Event) {
        (self.sender, self.event) = (sender, event)
        defer { (self.sender, self.event) = (nil, nil) }
        handler(self)
    }

    /// The selector a control delivers closure actions through, so that
    /// ``Control/sendAction(_:to:for:)`` sees them too.
    static let performSelector = ControlAction(Selector<Action>("Action.perform", Action.perform))
}
