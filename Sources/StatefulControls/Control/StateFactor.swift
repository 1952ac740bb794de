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
/// A Bool factor registered for a custom state by its projection (`register(on, for: $isOn)`)
/// or its storage (`register(on, for: \._isOn)`) sets or clears that state's bit when it
/// changes, as the built-in factors do: no evaluation reads it, so a control's state changes at
/// the same cost however many such states it has.
///
/// Setting the same value again does nothing. Inside a transition the state is applied once,
/// at ``Control/commitTransition()``.
@MainActor
@propertyWrapper
public struct StateFactor<Value: Equatable> {
    @usableFromInline var value: Value
    /// The custom states the factor pushes to its control while true and while false (a Bool
    /// factor registered with `register(_:for:inverted:named:)`); empty for any other factor.
    @usableFromInline var pushedWhileTrue = ControlState()
    @usableFromInline var pushedWhileFalse = ControlState()

    /// Creates the factor with its initial value.
    public init(wrappedValue: Value) { value = wrappedValue }

    /// Unavailable: a factor is read and written through its control (see the type's discussion).
    @available(*, unavailable, message: "@StateFactor is only available on properties of Control subclasses")
    public var wrappedValue: Value {
        get { fatalError("unavailable") }
        set { fatalError("unavailable") }
    }

    /// Unavailable: `$factor` is read through its control (see ``Reference``).
    @available(*, unavailable, message: "@StateFactor is only available on properties of Control subclasses")
    public var projectedValue: Reference { fatalError("unavailable") }

    /// `$factor`: a reference to the factor of its control, to register a custom state that
    /// the factor pushes (`register(on, for: $isOn)`). Made only when asked for: reads and
    /// writes of the factor do not pay for it.
    public static subscript<Owner: Control>(
        _enclosingInstance owner: Owner,
        projected projectedKeyPath: KeyPath<Owner, Reference>,
        storage storageKeyPath: ReferenceWritableKeyPath<Owner, StateFactor<Value>>
    ) -> Reference {
        Reference(owner: owner, storage: storageKeyPath) { body in body(&owner[keyPath: storageKeyPath]) }
    }

    /// Reads and writes the factor through its owning control, which re-evaluates its state
    /// when the value changes; a factor registered for a custom state sets or clears that
    /// state's bit first (no evaluation of it).
    ///
    /// Inlinable, so that where the control's class is known the storage key path folds into
    /// a direct access (a key-path projection walks the key path at each change). Each
    /// accessor uses the key path once: the optimizer folds only a single use.
    @inlinable
    public static subscript<Owner: Control>(
        _enclosingInstance owner: Owner,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Owner, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Owner, StateFactor<Value>>
    ) -> Value {
        get { owner[keyPath: storageKeyPath].value }
        set {
            var whileTrue = ControlState(), whileFalse = ControlState()
            guard assign(newValue, to: &owner[keyPath: storageKeyPath], whileTrue: &whileTrue, whileFalse: &whileFalse) else { return }
            if whileTrue.isEmpty && whileFalse.isEmpty {
                owner.updateState()
            } else if newValue as! Bool {
                owner.pushState(on: whileTrue, off: whileFalse)
            } else {
                owner.pushState(on: whileFalse, off: whileTrue)
            }
        }
    }

    /// Stores `newValue` unless it equals the stored one; returns whether it stored, with the
    /// states the factor pushes.
    @inlinable
    static func assign(
        _ newValue: Value, to factor: inout StateFactor, whileTrue: inout ControlState,
        whileFalse: inout ControlState
    ) -> Bool {
        guard factor.value != newValue else { return false }
        factor.value = newValue
        (whileTrue, whileFalse) = (factor.pushedWhileTrue, factor.pushedWhileFalse)
        return true
    }
}

extension StateFactor where Value == Bool {
    /// Makes the factor push `state` while true (while false when `inverted`); returns the
    /// state it pushes for that value already, if any, and then changes nothing.
    mutating func pushes(_ state: ControlState, inverted: Bool) -> ControlState? {
        let current = inverted ? pushedWhileFalse : pushedWhileTrue
        guard current.isEmpty else { return current }
        if inverted { pushedWhileFalse = state } else { pushedWhileTrue = state }
        return nil
    }
}

extension StateFactor {
    /// A factor of one control, as `$factor` gives it: what a custom state pushed by the
    /// factor is registered for.
    ///
    /// ```swift
    /// final class Toggle: Control {
    ///     @StateFactor var isOn = false
    /// }
    /// toggle.register(on, for: toggle.$isOn)   // inside Toggle: register(on, for: $isOn)
    /// ```
    ///
    /// It holds its control strongly, as a value to pass, not to keep.
    @MainActor
    public struct Reference {
        /// The control the factor belongs to.
        let owner: Control
        /// The factor's storage, as `\Toggle._isOn`, to name it in messages.
        let storage: AnyKeyPath
        /// Runs a body on the factor, in place in its control.
        let access: @MainActor ((inout StateFactor) -> Void) -> Void
    }
}
