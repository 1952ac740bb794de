public import Observation

/// The base class of controls: a state computed from boolean factors, values bound to states,
/// and target–action events (see ``sendActions(for:)``).
///
/// The state is never stored. It is computed from ``isEnabled``, ``isSelected``,
/// ``isHighlighted``, ``isFocused`` and the custom states registered with
/// `register(_:for:inverted:named:)` and ``StateConfigurable/register(_:named:when:)``.
/// Changing a factor re-evaluates the state and applies it: every value bound with
/// ``setValue(_:for:of:when:)`` whose winner differs between the old and the new state is
/// written, and nothing else.
///
/// ```swift
/// let button = Button()
/// button.setValue(Color.grey, for: \.titleColor, of: button, when: .containing(.disabled))
/// button.isEnabled = false   // titleColor becomes grey
/// ```
@MainActor
open class Control: View, Observable {
    /// Whether the control is enabled; `false` adds ``ControlState/disabled`` to the state.
    /// A disabled control ignores touches; ``sendActions(for:)`` still delivers.
    open var isEnabled: Bool {
        get { factor(.disabled, Self.isEnabledKeyPath) == false }
        set { setFactor(.disabled, !newValue, Self.isEnabledKeyPath) }
    }

    /// Whether the control is selected (``ControlState/selected``).
    open var isSelected: Bool {
        get { factor(.selected, Self.isSelectedKeyPath) }
        set { setFactor(.selected, newValue, Self.isSelectedKeyPath) }
    }

    /// Whether the control is highlighted (``ControlState/highlighted``): set while a touch
    /// is tracked inside it.
    open var isHighlighted: Bool {
        get { factor(.highlighted, Self.isHighlightedKeyPath) }
        set { setFactor(.highlighted, newValue, Self.isHighlightedKeyPath) }
    }

    /// Whether the control has the focus (``ControlState/focused``).
    open var isFocused: Bool {
        get { factor(.focused, Self.isFocusedKeyPath) }
        set { setFactor(.focused, newValue, Self.isFocusedKeyPath) }
    }

    /// The state bits of the four built-in factors, stored as the state has them.
    @exclusivity(unchecked) private var factors: ControlState = []
    /// Reports reads and changes of ``state`` and the factors to Observation (see
    /// ``Control`` and `withObservationTracking`).
    let observationRegistrar = ObservationRegistrar()
    /// What was read through the observable getters since its last change was reported: only
    /// those changes are reported (Observation's tracking is one-shot: an observer reads again
    /// to observe again), so a control no one observes pays no registrar call. Factor bits, and
    /// `stateBit` for ``state``.
    @exclusivity(unchecked) private var readSinceReported: ControlState = []
    /// The state when ``state`` was last read: a change is reported when the state differs.
    @exclusivity(unchecked) private var observedState: ControlState = []
    private static var stateBit: ControlState { ControlState(rawValue: 1 << 63) }

    let resolver = StateResolver()
    /// Every registered custom state, in registration order: ``reachableStates`` and the
    /// duplicate check read them.
    @exclusivity(unchecked) var customStates: [CustomState] = []
    /// The registered states derived on every evaluation (predicates, and properties that are
    /// not a `@StateFactor` of their own).
    @exclusivity(unchecked) var derivedStates: [DerivedState] = []
    /// The registered states pushed by their `@StateFactor` when it changes, those now on.
    @exclusivity(unchecked) private var pushedStates: ControlState = []
    let subscriptions = WeakTokens<StateSubscription>()
    /// The subscriptions of ``appliedStates(bufferingNewest:)``, kept while the control lives.
    var streamSubscriptions: [StateSubscription] = []
    @exclusivity(unchecked) var isNotifying = false
    @exclusivity(unchecked) var transitionDepth = 0
    /// The propagation queue (see ``applyState()``), whether the control waits in it, and how
    /// often it was queued in the current drain (`propagationDrain`).
    let propagation = Propagation.shared
    @exclusivity(unchecked) var isQueuedToApply = false
    @exclusivity(unchecked) var propagationRounds = 0
    @exclusivity(unchecked) var propagationDrain: UInt = 0
    var queuedEvents: [Event] = []
    var registrations: [ActionRegistration] = []
    var tracking = TrackingState()

    /// How far around the bounds a tracked touch still counts as inside (70 points, as UIKit
    /// behaves).
    open var touchSlop = 70.0

    /// How content is placed vertically; bindable per state like any property.
    open var contentVerticalAlignment = ContentVerticalAlignment.center

    /// How content is placed horizontally; `leading` and `trailing` follow
    /// ``layoutDirection`` (see ``effectiveContentHorizontalAlignment``).
    open var contentHorizontalAlignment = ContentHorizontalAlignment.center

    /// The direction of the control's layout.
    open var layoutDirection = LayoutDirection.leftToRight

    /// Creates a control.
    public override init(frame: Rect = .zero) {
        super.init(frame: frame)
    }

    // MARK: Overridable delivery and tracking

    /// Delivers one action; every delivery of ``sendActions(for:)`` passes here. The default
    /// hands it to ``Application/shared``. Override to observe, redirect (call `super` with
    /// another target) or suppress (do not call `super`) a delivery.
    open func sendAction(_ action: ControlAction, to target: AnyObject?, for event: Event) {
        Application.shared.sendAction(action, to: target, from: self, for: event)
    }

    /// Called when a touch goes down in the control; return false not to track it.
    open func beginTracking(_ touch: Touch, with event: Event?) -> Bool { true }

    /// Called when the tracked touch moves; return false to stop tracking it.
    open func continueTracking(_ touch: Touch, with event: Event?) -> Bool { true }

    /// Called when tracking ends with the touch that ended it: it was lifted (`event` is the
    /// touch-up event), or ``continueTracking(_:with:)`` returned false (`event` is nil).
    open func endTracking(_ touch: Touch, with event: Event?) {}

    /// Called when tracking is cancelled.
    open func cancelTracking(with event: Event?) {}

    /// Starts tracking a touch (ignored while the control is disabled): highlights the control
    /// and sends ``ControlEvents/touchDown`` (and ``ControlEvents/touchDownRepeat`` for a
    /// tap count above one).
    open func touchesBegan(_ touch: Touch) { handleTouchBegan(touch) }

    /// Follows the tracked touch: sends drag inside/outside, or enter/exit when it crosses the
    /// edge of ``trackingArea``, and highlights the control while it is inside.
    open func touchesMoved(_ touch: Touch) { handleTouchMoved(touch) }

    /// Ends tracking: sends ``ControlEvents/touchUpInside`` and
    /// ``ControlEvents/primaryActionTriggered``, or ``ControlEvents/touchUpOutside``.
    open func touchesEnded(_ touch: Touch) { handleTouchEnded(touch) }

    /// Cancels tracking and sends ``ControlEvents/touchCancel``.
    open func touchesCancelled(_ touch: Touch) { handleTouchCancelled(touch) }

    /// The control's state, computed from its factors and custom states each time it is read.
    ///
    /// Observable: a `withObservationTracking` that reads it is told when a change of a factor
    /// (or an ``updateState()``) changes it, and not when the state stays the same.
    public var state: ControlState {
        observationRegistrar.access(self, keyPath: Self.stateKeyPath)
        let state = currentState
        readSinceReported.insert(Self.stateBit)
        observedState = state
        return state
    }

    /// ``state``, without reporting the read to Observation.
    var currentState: ControlState {
        var state = factors.union(pushedStates)
        if derivedStates.isEmpty { return state }
        for derived in derivedStates where derived.isActive(self) { state.insert(derived.state) }
        return state
    }

    // Key paths instantiated once (a literal is looked up by the runtime at every use).
    private static let stateKeyPath: KeyPath<Control, ControlState> = \.state
    private static let isEnabledKeyPath: KeyPath<Control, Bool> = \.isEnabled
    private static let isSelectedKeyPath: KeyPath<Control, Bool> = \.isSelected
    private static let isHighlightedKeyPath: KeyPath<Control, Bool> = \.isHighlighted
    private static let isFocusedKeyPath: KeyPath<Control, Bool> = \.isFocused

    private func factor(_ bit: ControlState, _ keyPath: @autoclosure () -> KeyPath<Control, Bool>) -> Bool {
        observationRegistrar.access(self, keyPath: keyPath())
        readSinceReported.insert(bit)
        return factors.contains(bit)
    }

    /// Sets or clears a built-in factor's bit, updating the state when it changes.
    private func setFactor(_ bit: ControlState, _ isOn: Bool, _ keyPath: @autoclosure () -> KeyPath<Control, Bool>) {
        guard factors.contains(bit) != isOn else { return }
        if readSinceReported.contains(bit) {
            reportChange(of: bit, keyPath())
        } else {
            factors.formSymmetricDifference(bit)
        }
        updateState()
    }

    /// Flips `bit` under Observation's eyes (out of line: only for what was read). The
    /// registrar's `willSet`/`didSet` directly: a closure passed to `withMutation` would be
    /// checked for main-actor isolation at every call.
    @inline(never)
    private func reportChange(of bit: ControlState, _ keyPath: KeyPath<Control, Bool>) {
        readSinceReported.remove(bit)
        observationRegistrar.willSet(self, keyPath: keyPath)
        factors.formSymmetricDifference(bit)
        observationRegistrar.didSet(self, keyPath: keyPath)
    }

    /// Reports a change of ``state`` to Observation if it differs from what was read.
    @inline(never)
    private func reportStateChange() {
        guard currentState != observedState else { return }
        readSinceReported.remove(Self.stateBit)
        observationRegistrar.willSet(self, keyPath: Self.stateKeyPath)
        observationRegistrar.didSet(self, keyPath: Self.stateKeyPath)
    }

    /// The state whose bound values are applied: ``state``, except inside a transition (which
    /// applies at its commit) or after ``endTransition()`` until the next change.
    public var appliedState: ControlState { resolver.appliedState }

    /// Re-evaluates the state and applies it (outside a transition).
    ///
    /// Factor changes call this for you. Call it after changing something a custom-state
    /// predicate reads that is not a ``StateFactor``.
    public func updateState() {
        if readSinceReported.contains(Self.stateBit) { reportStateChange() }
        guard transitionDepth == 0 else { return }
        applyState()
    }

    /// Applies the state. A control whose state changes while another control applies its
    /// own (a dependency: that control's bound value is this one's factor) is applied after
    /// it, by the outermost apply, from a queue: a chain of dependencies of any length
    /// propagates without nesting calls, and a cycle is stopped with a diagnostic.
    func applyState() {
        if propagation.isDraining {  // a control's apply is running (isWriting implies isDraining)
            if resolver.isApplyingChanges { return applyOwnState() }  // finished by the running apply
            if propagation.isWriting { return propagation.enqueue(self) }  // from another's setter
            return applyOwnState()  // e.g. from a subscription handler
        }
        propagation.isDraining = true
        applyOwnState()
        if propagation.hasQueued { propagation.applyQueued() }
        propagation.finishDraining()
    }

    @inline(__always)
    fileprivate func applyOwnState() {
        let wasWriting = propagation.isWriting
        propagation.isWriting = true
        do {
            try resolver.apply(currentState)
        } catch {
            Control.diagnosticHandler(ControlDiagnostic(
                "\(type(of: self)): \(error.description); applied state stays [\(appliedState)]"))
        }
        propagation.isWriting = wasWriting
        // A nested apply (from a setter) is finished by the outer one, which notifies.
        guard !subscriptions.isEmpty, !resolver.isApplyingChanges else { return }
        notifySubscriptions()
    }
}

/// The queue of controls whose state changed during another control's apply (one per
/// process: controls live on the main actor).
@MainActor
final class Propagation {
    static let shared = Propagation()

    /// Whether a control's apply is running: it runs the queue when done.
    @exclusivity(unchecked) var isDraining = false
    /// Whether a control's resolver is writing bound values: a control whose state changes
    /// now (a dependency) waits in the queue.
    @exclusivity(unchecked) var isWriting = false
    @exclusivity(unchecked) private var queue: ContiguousArray<Control> = []
    @exclusivity(unchecked) private var head = 0
    /// Numbers the drains, so that a control's count of applies in this one starts at 0.
    @exclusivity(unchecked) private var drain: UInt = 0

    /// Queues `control` unless it is queued already; a control queued more than
    /// `StateResolver.maximumRounds` times in one drain is in a dependency cycle and is dropped
    /// with a diagnostic.
    func enqueue(_ control: Control) {
        if control.isQueuedToApply { return }
        if control.propagationDrain != drain { (control.propagationDrain, control.propagationRounds) = (drain, 0) }
        control.propagationRounds += 1
        guard control.propagationRounds <= StateResolver.maximumRounds else {
            if control.propagationRounds == StateResolver.maximumRounds + 1 {
                Control.diagnosticHandler(ControlDiagnostic(
                    "\(type(of: control)): applying the state did not settle: controls keep changing each other's state (a dependency cycle); stopped at [\(control.appliedState)]"))
            }
            return
        }
        control.isQueuedToApply = true
        queue.append(control)
    }

    var hasQueued: Bool { !queue.isEmpty }

    /// Applies the queued controls in order; those they change join the queue.
    @inline(never)
    func applyQueued() {
        while head < queue.count {
            let control = queue[head]
            head += 1
            control.isQueuedToApply = false
            control.applyOwnState()
        }
        queue.removeAll(keepingCapacity: queue.count <= 1024)
        head = 0
    }

    func finishDraining() {
        isDraining = false
        drain &+= 1
    }
}

/// A custom state registered on a control.
struct CustomState {
    let state: ControlState
    let source: String
}

/// A custom state evaluated on every derivation of the control's state.
struct DerivedState {
    let state: ControlState
    let isActive: @MainActor (Control) -> Bool
}

extension Control {
    /// Stops the program unless `state` may be registered on this control: not empty, within
    /// `range` (the application ranges for apps, the reserved range for the library's own
    /// components), and not registered already.
    func checkRegistration(of state: ControlState, source: String, in range: ControlState) {
        let name = "\(type(of: self)).register"
        guard !state.isEmpty else {
            misuse("\(name): an empty state for \(source); register a state from ControlState.allocate(named:in:)")
        }
        guard range.isSuperset(of: state) else {
            misuse("\(name): state \(state.hexadecimal) for \(source) lies outside \(range.rangeDescription); allocate custom states with ControlState.allocate(named:in:)")
        }
        if let clash = customStates.first(where: { !$0.state.isDisjoint(with: state) }) {
            misuse("\(name): state [\(state)] for \(source) is already registered on this control for \(clash.source); register each state once per control")
        }
    }

    /// Registers a custom state evaluated by `isActive` on every derivation (checked by
    /// ``checkRegistration(of:source:in:)``).
    func registerDerivedState(_ state: ControlState, source: String, isActive: @escaping @MainActor (Control) -> Bool) {
        customStates.append(CustomState(state: state, source: source))
        derivedStates.append(DerivedState(state: state, isActive: isActive))
        updateState()
    }

    /// Registers a custom state its factor pushes when it changes (see ``pushState(on:off:)``),
    /// on now when `isOn` (checked by ``checkRegistration(of:source:in:)``).
    func registerPushedState(_ state: ControlState, source: String, isOn: Bool) {
        customStates.append(CustomState(state: state, source: source))
        if isOn { pushedStates.formUnion(state) }
        updateState()
    }

    /// Sets the bits of `on`, clears those of `off` and updates the state: what a `@StateFactor`
    /// registered for custom states calls when its value changes.
    @usableFromInline
    final func pushState(on: ControlState, off: ControlState) {
        pushedStates = pushedStates.subtracting(off).union(on)
        updateState()
    }
}
