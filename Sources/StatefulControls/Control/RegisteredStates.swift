// A control's part that holds its custom states: every registration, the states derived on
// each evaluation, and the pushed states now on.

/// The custom states registered on a control: each registration in order (for the duplicate
/// check and ``Control/reachableStates``), the states derived on every evaluation of the state
/// (predicates, and properties that are not a `@StateFactor` of their own), and the bits of the
/// states pushed by their `@StateFactor` that are on now.
struct RegisteredStates {
    /// A custom state registered on a control, and what registered it (for messages).
    struct Registration {
        let state: ControlState
        let source: String
    }

    /// A custom state evaluated on every derivation of the control's state.
    struct Derived {
        let state: ControlState
        let isActive: @MainActor (Control) -> Bool
    }

    /// Every registration, in registration order.
    private(set) var all: [Registration] = []
    /// The states derived on every evaluation, in registration order.
    private(set) var derived: [Derived] = []
    /// The pushed states now on.
    private(set) var pushed: ControlState = []

    /// The registration any of whose bits `state` has, if any.
    func registration(overlapping state: ControlState) -> Registration? {
        all.first { !$0.state.isDisjoint(with: state) }
    }

    /// Registers a state evaluated by `isActive` on every derivation.
    mutating func addDerived(_ state: ControlState, source: String, isActive: @escaping @MainActor (Control) -> Bool) {
        all.append(Registration(state: state, source: source))
        derived.append(Derived(state: state, isActive: isActive))
    }

    /// Registers a state its factor pushes, on now when `isOn`.
    mutating func addPushed(_ state: ControlState, source: String, isOn: Bool) {
        all.append(Registration(state: state, source: source))
        if isOn { pushed.formUnion(state) }
    }

    /// Turns the pushed bits of `on` on and those of `off` off.
    mutating func push(on: ControlState, off: ControlState) {
        pushed = pushed.subtracting(off).union(on)
    }
}
