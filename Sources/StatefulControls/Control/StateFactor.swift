/// A stored property of a ``Control`` whose changes re-evaluate the control's state.
///
/// Declare the inputs of custom states with it, and the state follows them without any update
/// call to remember:
///
/// ```swift
/// final class Toggle: Control {
///     @StateFactor var isOn = false
/// }
/// ```
///
/// Setting the same value again does nothing. Inside a transition the state is applied once,
/// at ``Control/commitTransition()``.
@MainActor
@propertyWrapper
public struct StateFactor<Value: Equatable> {
    @usableFromInline var value: Value

    /// Creates the factor with its initial value.
    public init(wrappedValue: Value) { value = wrappedValue }

    /// Unavailable: a factor is read and written through its control (see the type's discussion).
    @available(*, unavailable, message: "@StateFactor is only available on properties of Control subclasses")
    public var wrappedValue: Value {
        get { fatalError("unavailable") }
        set { fatalError("unavailable") }
    }

    /// Reads and writes the factor through its owning control, which re-evaluates its state
    /// when the value changes.
    ///
    /// Inlinable, so that where the control's class is known the storage key path folds into
    /// a direct access (a key-path projection costs about a thousand instructions). Each
    /// accessor uses the key path once: the optimizer folds only a single use.
    @inlinable
    public static subscript<Owner: Control>(
        _enclosingInstance owner: Owner,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Owner, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Owner, StateFactor<Value>>
    ) -> Value {
        get { owner[keyPath: storageKeyPath].value }
        set {
            if assign(newValue, to: &owner[keyPath: storageKeyPath].value) { owner.updateState() }
        }
    }

    /// Stores `newValue` unless it equals the stored one; returns whether it stored.
    @inlinable
    static func assign(_ newValue: Value, to value: inout Value) -> Bool {
        guard value != newValue else { return false }
        value = newValue
        return true
    }
}
