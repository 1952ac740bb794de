// How a control registers custom states and derives or pushes them (over its RegisteredStates part).

extension Control {
    /// The custom states registered on this control, in registration order: the app's, from
    /// the application ranges (`register(_:for:inverted:named:)`,
    /// `register(_:whenever:inverted:named:)`, ``StateConfigurable/register(_:named:when:)``), and for the library's own components
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

    /// Registers a custom state that the `@StateFactor` Bool reached by `access` pushes when it
    /// changes (see ``pushState(on:off:)``), after the checks of
    /// ``checkRegistration(of:source:in:)``.
    func registerPushed(
        _ state: ControlState, in range: ControlState, source: String, inverted: Bool,
        factor access: @MainActor ((inout StateFactor<Bool>) -> Void) -> Void
    ) {
        checkRegistration(of: state, source: source, in: range)
        var pushedAlready: ControlState?, isOn = false
        access { factor in
            pushedAlready = factor.pushes(state, inverted: inverted)
            isOn = factor.value != inverted
        }
        if let pushedAlready {
            misuse(
                "\(type(of: self)).register: the factor \(source) pushes [\(pushedAlready)] already while \(!inverted); a factor pushes one state while true and one while false"
            )
        }
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
