/// The part of the control API that names the control's own type: custom states read from its
/// properties, and values bound to its own key paths. Every ``Control`` conforms.
@MainActor
public protocol StateConfigurable: Control {}

extension Control: StateConfigurable {}

extension StateConfigurable {
    /// Registers a custom state that is on while the Bool at `keyPath` is true (false when
    /// `inverted`).
    ///
    /// Declare the property with ``StateFactor`` so that its changes update the state. `name`
    /// (by default the key path's description) identifies the registration in messages.
    ///
    /// Stops the program (a programmer error, in release builds too) when `state` is empty, has
    /// a bit outside the application ranges (`0x00FF0000` and `0xFFFFFFFF00000000`), or shares a
    /// bit with a state already registered on this control.
    public func register(_ state: ControlState, for keyPath: KeyPath<Self, Bool>, inverted: Bool = false,
                         named name: String? = nil) {
        register(state, in: .applicationRanges, for: keyPath, inverted: inverted, named: name)
    }

    /// Registers a custom state that is on while `predicate` returns true for the control.
    ///
    /// The state is re-evaluated when a factor changes (declare the inputs with
    /// ``StateFactor``) or when ``Control/updateState()`` is called. Stops the program on the
    /// mistakes listed in ``register(_:for:inverted:named:)``.
    public func register(_ state: ControlState, named name: String = "a predicate",
                         when predicate: @escaping @MainActor (Self) -> Bool) {
        register(state, in: .applicationRanges, named: name, when: predicate)
    }

    /// Registers a state of `range`: the application ranges for apps, the reserved range for
    /// the library's own components.
    func register(_ state: ControlState, in range: ControlState, for keyPath: KeyPath<Self, Bool>,
                  inverted: Bool = false, named name: String? = nil) {
        // Read on every state evaluation: at its offset, or through its getter (see BoolPropertyReader).
        let reader = BoolPropertyReader(keyPath, rootClass: type(of: self))
        register(state, in: range, named: (name ?? "\(keyPath)") + (inverted ? " (inverted)" : "")) {
            reader.read($0) != inverted
        }
    }

    func register(_ state: ControlState, in range: ControlState, named name: String,
                  when predicate: @escaping @MainActor (Self) -> Bool) {
        registerCustomState(state, source: name, in: range) { predicate(unsafeDowncast($0, to: Self.self)) }
    }

    /// Binds `value` to the control's own `keyPath` for the states `descriptor` matches.
    public func setValue<Value>(_ value: Value, for keyPath: ReferenceWritableKeyPath<Self, Value>,
                                when descriptor: StateDescriptor) {
        setValue(value, for: keyPath, of: self, when: descriptor)
    }

    /// Binds `value` to the control's own `keyPath` for exactly `state`.
    public func setValue<Value>(_ value: Value, for keyPath: ReferenceWritableKeyPath<Self, Value>,
                                forState state: ControlState) {
        setValue(value, for: keyPath, of: self, forState: state)
    }

    /// Binds `value` to the control's own `keyPath` for every state containing `state`.
    public func setValue<Value>(_ value: Value, for keyPath: ReferenceWritableKeyPath<Self, Value>,
                                forAllStatesContained state: ControlState) {
        setValue(value, for: keyPath, of: self, forAllStatesContained: state)
    }

    /// Binds `value` to the control's own `keyPath` for every state not containing `state`.
    public func setValue<Value>(_ value: Value, for keyPath: ReferenceWritableKeyPath<Self, Value>,
                                forInvertedState state: ControlState) {
        setValue(value, for: keyPath, of: self, forInvertedState: state)
    }

    /// The value the control's own `keyPath` gets in `state` (the default when no rule
    /// matches); nil when nothing is bound to it.
    public func value<Value>(for keyPath: ReferenceWritableKeyPath<Self, Value>, in state: ControlState) -> Value? {
        value(for: keyPath, of: self, in: state)
    }
}
