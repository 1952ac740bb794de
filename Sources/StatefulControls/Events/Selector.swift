/// A named method of a target type: the portable stand-in for an Objective-C selector.
///
/// The name identifies the action: it de-duplicates registrations, lists them, and is what a
/// responder is asked about when the action travels up the responder chain. The method is a
/// typed call, so no runtime lookup by string can fail.
///
/// ```swift
/// extension Selector where Target == LoginScreen {
///     static let submit = Selector("submit", LoginScreen.submit)
/// }
/// button.addTarget(screen, action: .submit, for: .primaryActionTriggered)
/// ```
public struct Selector<Target: AnyObject>: Sendable {
    /// The action's name.
    public let name: String
    let perform: @MainActor (Target, Control, Event) -> Void

    /// The name, which must not be empty: it identifies the action.
    private static func checked(_ name: String) -> String {
        if name.isEmpty { misuse("Selector(\"\", …): a selector's name identifies its action; pass the method's name") }
        return name
    }

    /// A selector for a method that takes no argument. Stops the program when `name` is empty
    /// (as do the other initialisers).
    public init(_ name: String, _ method: @escaping @MainActor (Target) -> () -> Void) {
        self.name = Self.checked(name)
        self.perform = { target, _, _ in method(target)() }
    }

    /// A selector for a method that takes the sending control.
    public init(_ name: String, _ method: @escaping @MainActor (Target) -> (Control) -> Void) {
        self.name = Self.checked(name)
        self.perform = { target, sender, _ in method(target)(sender) }
    }

    /// A selector for a method that takes the sending control and the event.
    public init(_ name: String, _ method: @escaping @MainActor (Target) -> (Control, Event) -> Void) {
        self.name = Self.checked(name)
        self.perform = { target, sender, event in method(target)(sender, event) }
    }
}

/// A type-erased ``Selector``: what a control registers and delivers.
public struct ControlAction: Sendable, CustomStringConvertible {
    /// The action's name.
    public let name: String
    /// The type whose method the action calls.
    public let targetType: Any.Type
    private let accepts: @MainActor (AnyObject) -> Bool
    private let call: @MainActor (AnyObject, Control, Event) -> Bool

    /// Erases a selector.
    public init<Target: AnyObject>(_ selector: Selector<Target>) {
        name = selector.name
        targetType = Target.self
        accepts = { $0 is Target }
        call = { target, sender, event in
            guard let target = target as? Target else { return false }
            selector.perform(target, sender, event)
            return true
        }
    }

    /// Whether `object` is of the target type (so it can perform the action).
    @MainActor
    public func canBePerformed(by object: AnyObject) -> Bool { accepts(object) }

    /// Performs the action on `target`; returns false when the target is of another type.
    @MainActor
    @discardableResult
    public func perform(on target: AnyObject, sender: Control, event: Event) -> Bool {
        call(target, sender, event)
    }

    /// `name` on `TargetType`.
    public var description: String { "\(name) on \(targetType)" }
}
