// How a control registers custom states and derives or pushes them (over its RegisteredStates part).

extension Control {
    /// The custom states registered on this control, in registration order: the app's, from
    /// the application ranges (`register(_:for:inverted:named:)`,
    /// ``StateConfigurable/register(_:named:when:)``), and for the library's own components
    /// their states of the reserved range (``ControlState/filled`` and the others). With the
    /// four built-in factors' states, these are the bits ``state`` can have; ``ControlState``'s
    /// description names each (by the name it was allocated with).
    ///
    /// ```swift
    /// PinCodeControl().registeredCustomStates   // [.filled, .valid, .invalid]
    /// ```
    ///
    /// - Complexity: O(*c*) in the registered states.
    public var registeredCustomStates: [ControlState] { registeredStates.all.map(\.state) }

    /// Stops the program unless `state` may be registered on this control: not empty, within
    /// `range` (the application ranges for apps, the reserved range for the library's own
    /// components), and not registered already.
    func checkRegistration(of state: ControlState, source: String, in range: ControlState) {
        let name = "\(type(of: self)).register"
        guard !state.isEmpty else {
            misuse("\(name): an empty state for \(source); register a state from ControlState.allocate(named:in:)")
        }
        guard range.isSuperset(of: state) else {
            misuse(
                "\(name): state \(state.hexadecimal) for \(source) lies outside \(range.rangeDescription); allocate custom states with ControlState.allocate(named:in:)"
            )
        }
        if let clash = registeredStates.registration(overlapping: state) {
            misuse(
                "\(name): state [\(state)] for \(source) is already registered on this control for \(clash.source); register each state once per control"
            )
        }
    }

    /// Registers a custom state evaluated by `isActive` on every derivation (checked by
    /// ``checkRegistration(of:source:in:)``).
    func registerDerivedState(_ state: ControlState, source: String, isActive: @escaping @MainActor (Control) -> Bool) {
        registeredStates.addDerived(state, source: source, isActive: isActive)
        updateState()
    }

    /// Registers a custom state its factor pushes when it changes (see ``pushState(on:off:)``),
    /// on now when `isOn` (checked by ``checkRegistration(of:source:in:)``).
    func registerPushedState(_ state: ControlState, source: String, isOn: Bool) {
        registeredStates.addPushed(state, source: source, isOn: isOn)
        updateState()
    }

    /// Sets the bits of `on`, clears those of `off` and updates the state: what a `@StateFactor`
    /// registered for custom states calls when its value changes.
    @usableFromInline
    final func pushState(on: ControlState, off: ControlState) {
        registeredStates.push(on: on, off: off)
        updateState()
    }
}
