/// The part of the control API that names the control's own type: custom states read from its
/// properties, and values bound to its own key paths. Every ``Control`` conforms.
@MainActor
public protocol StateConfigurable: Control {}

extension Control: StateConfigurable {}

extension StateConfigurable {
    /// Registers a custom state that is on while the Bool at `keyPath` is true (false when
    /// `inverted`), read on every evaluation of the state.
    ///
    /// Use it for a computed property (its factors' changes re-evaluate it), a built-in factor
    /// such as ``Control/isSelected``, or a property that is not a factor (call
    /// ``Control/updateState()`` when it changes). For a ``StateFactor`` Bool, register the
    /// factor itself (`register(on, for: $isOn)`): it then pushes the state when it changes,
    /// and no evaluation reads it. `name` (by default the key path's description) identifies
    /// the registration in messages.
    ///
    /// ```swift
    /// field.register(empty, whenever: \.isEmpty)
    /// ```
    ///
    /// Stops the program (a programmer error, in release builds too) when `state` is empty, has
    /// a bit outside the application ranges (`0x00FF0000` and `0xFFFFFFFF00000000`), or shares a
    /// bit with a state already registered on this control.
    /// - Complexity: O(1) to register; the property is read on every evaluation of the state.
    public func register(
        _ state: ControlState, whenever keyPath: KeyPath<Self, Bool>, inverted: Bool = false,
        named name: String? = nil
    ) {
        register(state, in: .applicationRanges, whenever: keyPath, inverted: inverted, named: name)
    }

    /// Registers a custom state read from the Bool at `keyPath` on every evaluation: the
    /// earlier name of `register(_:whenever:inverted:named:)`.
    ///
    /// Unavailable, so that it does not compile: it read a `@StateFactor`'s property too
    /// (`\.isOn`) on every evaluation, where the factor could push the state (`$isOn`), and
    /// nothing at the call said which happened. The compiler's message names both spellings.
    @available(
        *, unavailable,
        message:
            "this reads the Bool on every evaluation: for a @StateFactor, register the factor, register(state, for: $isOn), which pushes the state; for any other Bool, register(_:whenever:inverted:named:)"
    )
    public func register(
        _ state: ControlState, for keyPath: KeyPath<Self, Bool>, inverted: Bool = false,
        named name: String? = nil
    ) {
        register(state, in: .applicationRanges, whenever: keyPath, inverted: inverted, named: name)
    }

    /// Registers a custom state that is on while the `@StateFactor` Bool `factor` is true
    /// (false when `inverted`): the factor sets or clears the state's bit when it changes, as
    /// the built-in factors do, so no evaluation reads it.
    ///
    /// Pass the factor's projection, the property's name with a dollar sign:
    ///
    /// ```swift
    /// final class Cell: Control {
    ///     @StateFactor var isArchived = false
    ///
    ///     init(archived: ControlState) {
    ///         super.init()
    ///         register(archived, for: $isArchived)
    ///     }
    /// }
    /// ```
    ///
    /// The state follows the factor's stored value, as the built-in factors' states do, even
    /// where a subclass overrides the property's getter. A factor pushes at most one state while
    /// true and one while false (`inverted`). Stops the program on the mistakes listed for
    /// `register(_:whenever:inverted:named:)`, when the factor pushes a state for the same value
    /// already, and when the factor is another control's.
    /// - Complexity: O(1) to register, and O(1) per change of the factor whatever the number
    ///   of custom states.
    public func register(
        _ state: ControlState, for factor: StateFactor<Bool>.Reference, inverted: Bool = false,
        named name: String? = nil
    ) {
        let source = (name ?? "\(factor.storage)") + (inverted ? " (inverted)" : "")
        guard factor.owner === self else {
            misuse(
                "\(type(of: self)).register: the factor \(source) is another control's (a \(type(of: factor.owner))); a factor pushes the states of its own control: register them there"
            )
        }
        registerPushed(state, in: .applicationRanges, source: source, inverted: inverted, factor: factor.access)
    }

    /// Registers a custom state pushed by the `@StateFactor` Bool stored at `factor`: the same
    /// registration as `register(state, for: $isOn)`, given the factor's storage (`\._isOn`,
    /// visible in the control's own file).
    ///
    /// ```swift
    /// register(archived, for: \._isArchived)
    /// ```
    /// - Complexity: O(1) to register, and O(1) per change of the factor.
    public func register(
        _ state: ControlState, for factor: ReferenceWritableKeyPath<Self, StateFactor<Bool>>,
        inverted: Bool = false, named name: String? = nil
    ) {
        register(state, in: .applicationRanges, for: factor, inverted: inverted, named: name)
    }

    /// Registers a custom state that is on while `predicate` returns true for the control.
    ///
    /// The state is re-evaluated when a factor changes (declare the inputs with
    /// ``StateFactor``) or when ``Control/updateState()`` is called. Stops the program on the
    /// mistakes listed for `register(_:whenever:inverted:named:)`.
    public func register(
        _ state: ControlState, named name: String = "a predicate",
        when predicate: @escaping @MainActor (Self) -> Bool
    ) {
        register(state, in: .applicationRanges, named: name, when: predicate)
    }

    /// Registers a state of `range`: the application ranges for apps, the reserved range for
    /// the library's own components.
    func register(
        _ state: ControlState, in range: ControlState, whenever keyPath: KeyPath<Self, Bool>,
        inverted: Bool = false, named name: String? = nil
    ) {
        let source = (name ?? "\(keyPath)") + (inverted ? " (inverted)" : "")
        checkRegistration(of: state, source: source, in: range)
        // Read on every state evaluation, as the process's property access reads (see PropertyAccess).
        let read = boolPropertyReader(keyPath, rootClass: type(of: self))
        registerDerivedState(state, source: source) { read($0) != inverted }
    }

    func register(
        _ state: ControlState, in range: ControlState, for factor: ReferenceWritableKeyPath<Self, StateFactor<Bool>>,
        inverted: Bool = false, named name: String? = nil
    ) {
        let source = (name ?? "\(factor)") + (inverted ? " (inverted)" : "")
        registerPushed(state, in: range, source: source, inverted: inverted) { body in body(&self[keyPath: factor]) }
    }

    func register(
        _ state: ControlState, in range: ControlState, named name: String,
        when predicate: @escaping @MainActor (Self) -> Bool
    ) {
        checkRegistration(of: state, source: name, in: range)
        registerDerivedState(state, source: name) { predicate(unsafeDowncast($0, to: Self.self)) }
    }

    /// Binds `value` to the control's own `keyPath` for the states `descriptor` matches.
    @inlinable
    public func setValue<Value>(
        _ value: Value, for keyPath: @autoclosure () -> ReferenceWritableKeyPath<Self, Value>,
        when descriptor: StateDescriptor
    ) {
        setValue(value, for: keyPath(), of: self, when: descriptor)
    }

    /// Binds `value` to the control's own `keyPath` for exactly `state`.
    @inlinable
    public func setValue<Value>(
        _ value: Value, for keyPath: @autoclosure () -> ReferenceWritableKeyPath<Self, Value>,
        forState state: ControlState
    ) {
        setValue(value, for: keyPath(), of: self, forState: state)
    }

    /// Binds `value` to the control's own `keyPath` for every state containing `state`.
    @inlinable
    public func setValue<Value>(
        _ value: Value, for keyPath: @autoclosure () -> ReferenceWritableKeyPath<Self, Value>,
        forAllStatesContained state: ControlState
    ) {
        setValue(value, for: keyPath(), of: self, forAllStatesContained: state)
    }

    /// Binds `value` to the control's own `keyPath` for every state not containing `state`.
    @inlinable
    public func setValue<Value>(
        _ value: Value, for keyPath: @autoclosure () -> ReferenceWritableKeyPath<Self, Value>,
        forInvertedState state: ControlState
    ) {
        setValue(value, for: keyPath(), of: self, forInvertedState: state)
    }

    /// The value the control's own `keyPath` gets in `state` (the default when no rule
    /// matches); nil when nothing is bound to it.
    public func value<Value>(for keyPath: ReferenceWritableKeyPath<Self, Value>, in state: ControlState) -> Value? {
        value(for: keyPath, of: self, in: state)
    }
}
