// The base class of controls: its factors, the state computed from them, and how a change of
// state is applied (its other concerns: the Control+… files, and the parts it stores).

public import Observation

/// The base class of controls: a state computed from boolean factors, values bound to states,
/// and target–action events (see ``sendActions(for:)``).
///
/// The state is never stored. It is computed from ``isEnabled``, ``isSelected``,
/// ``isHighlighted``, ``isFocused`` and the custom states registered with
/// `register(_:for:inverted:named:)`, `register(_:whenever:inverted:named:)` and
/// ``StateConfigurable/register(_:named:when:)``.
/// Changing a factor re-evaluates the state and applies it: every value bound with
/// ``setValue(_:for:of:when:)`` whose winner differs between the old and the new state is
/// written, and nothing else.
///
/// ```swift
/// let button = Button()
/// button.setValue(Color.grey, for: \.titleColor, of: button, when: .containing(.disabled))
/// button.isEnabled = false   // titleColor becomes grey
/// ```
///
/// ``state`` and the factors are observable (`withObservationTracking`): a read through a
/// getter is tracked, and a later change of what was read is reported. A factor changed in
/// place through the control's own accessors, such as `isSelected.toggle()`, is a write, not a
/// read: it reports to an observer that read the factor or the state, and calls no Observation
/// function when neither was read since its last report. (Through a key path,
/// `control[keyPath: \.isSelected].toggle()`, or an override with a getter of its own, the
/// change in place reads the factor first, as any read does.)
@MainActor
open class Control: View, Observable {
    // Each factor's `_modify` is spelled out: one shared subscript would yield through a second
    // coroutine on every factor change (BENCHMARKS.md, the form scenario).

    /// Whether the control is enabled; `false` adds ``ControlState/disabled`` to the state.
    /// A disabled control ignores touches; ``sendActions(for:)`` still delivers.
    open var isEnabled: Bool {
        get { factor(.disabled, Self.isEnabledKeyPath) == false }
        set { setFactor(.disabled, !newValue, Self.isEnabledKeyPath) }
        _modify {
            var isEnabled = !factors.contains(.disabled)
            defer { setFactor(.disabled, !isEnabled, Self.isEnabledKeyPath) }
            yield &isEnabled
        }
    }

    /// Whether the control is selected (``ControlState/selected``).
    open var isSelected: Bool {
        get { factor(.selected, Self.isSelectedKeyPath) }
        set { setFactor(.selected, newValue, Self.isSelectedKeyPath) }
        _modify {
            var isSelected = factors.contains(.selected)
            defer { setFactor(.selected, isSelected, Self.isSelectedKeyPath) }
            yield &isSelected
        }
    }

    /// Whether the control is highlighted (``ControlState/highlighted``): set while a touch
    /// is tracked inside it.
    open var isHighlighted: Bool {
        get { factor(.highlighted, Self.isHighlightedKeyPath) }
        set { setFactor(.highlighted, newValue, Self.isHighlightedKeyPath) }
        _modify {
            var isHighlighted = factors.contains(.highlighted)
            defer { setFactor(.highlighted, isHighlighted, Self.isHighlightedKeyPath) }
            yield &isHighlighted
        }
    }

    /// Whether the control has the focus (``ControlState/focused``).
    open var isFocused: Bool {
        get { factor(.focused, Self.isFocusedKeyPath) }
        set { setFactor(.focused, newValue, Self.isFocusedKeyPath) }
        _modify {
            var isFocused = factors.contains(.focused)
            defer { setFactor(.focused, isFocused, Self.isFocusedKeyPath) }
            yield &isFocused
        }
    }

    // The fields of a byte come first: they take the padding after ``View/isHidden``, and a
    // control takes 248 bytes, malloc's 256-byte chunk (the `memory` scenario of resolver-bench).

    /// The touch being tracked.
    var tracking = TrackingState()

    /// How content is placed vertically; bindable per state like any property.
    open var contentVerticalAlignment = ContentVerticalAlignment.center

    /// How content is placed horizontally; `leading` and `trailing` follow
    /// ``layoutDirection`` (see ``effectiveContentHorizontalAlignment``).
    open var contentHorizontalAlignment = ContentHorizontalAlignment.center

    /// The direction of the control's layout.
    open var layoutDirection = LayoutDirection.leftToRight

    /// Whether a state change only moves or applies the resolver, as the parts below say
    /// (``partsAllowPlainChanges``): their `didSet` keep it, so that ``updateState()`` tests one
    /// byte for the four. (Declared here: it takes the padding after the enums above.)
    @exclusivity(unchecked) private(set) var changesPlainly = true

    /// The state bits of the four built-in factors, stored as the state has them.
    @exclusivity(unchecked) private var factors: ControlState = []
    // The parts of the control's state, one concern each (a value of its own type, all in
    // ControlParts.swift), accessed in place: unchecked, as a control lives on the main actor
    // and no access to a part lasts across user code (handlers and predicates run on copies or
    // references).

    /// Reports reads and changes of ``state`` and the factors to Observation (see ``Control``
    /// and `withObservationTracking`), for what ``observation`` records as read; made at the
    /// first read through an observable getter (see ``observationRegistrar``).
    @exclusivity(unchecked) private var registrar: RegistrarBox?
    @exclusivity(unchecked) var observation = ObservationState() { didSet { changesPlainly = partsAllowPlainChanges } }
    let resolver = StateResolver(sharingRules: true)
    /// The custom states registered with `register(_:for:inverted:named:)`,
    /// `register(_:whenever:inverted:named:)` and ``StateConfigurable/register(_:named:when:)``.
    @exclusivity(unchecked) var registeredStates = RegisteredStates() { didSet { changesPlainly = partsAllowPlainChanges } }
    @exclusivity(unchecked) var subscriptions = SubscriptionState() { didSet { changesPlainly = partsAllowPlainChanges } }
    @exclusivity(unchecked) var transitions = TransitionState() { didSet { changesPlainly = partsAllowPlainChanges } }
    /// The propagation queue (see ``applyState()``), and this control's entry in it.
    let propagation = Propagation.shared
    @exclusivity(unchecked) var propagationEntry = Propagation.Entry()
    /// The target–action registrations, in the order they were added.
    var registrations: [ActionRegistration] = []

    /// How far around the bounds a tracked touch still counts as inside (70 points, as UIKit
    /// behaves).
    open var touchSlop = 70.0

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
        observation.read(ObservationState.stateBit)
        observation.observedState = state
        return state
    }

    /// ``state``, without reporting the read to Observation.
    var currentState: ControlState {
        var state = factorsAndPushedStates
        if registeredStates.derived.isEmpty { return state }
        for derived in registeredStates.derived where derived.isActive(self) { state.insert(derived.state) }
        return state
    }

    /// The state without the custom states registered by predicates: all of it when there are
    /// none.
    private var factorsAndPushedStates: ControlState { factors.union(registeredStates.pushed) }

    // Key paths instantiated once (a literal is looked up by the runtime at every use).
    private static let stateKeyPath: KeyPath<Control, ControlState> = \.state
    private static let isEnabledKeyPath: KeyPath<Control, Bool> = \.isEnabled
    private static let isSelectedKeyPath: KeyPath<Control, Bool> = \.isSelected
    private static let isHighlightedKeyPath: KeyPath<Control, Bool> = \.isHighlighted
    private static let isFocusedKeyPath: KeyPath<Control, Bool> = \.isFocused

    /// The registrar, made when first needed: a control never read through an observable
    /// getter has none (it would take 104 bytes), and never reports a change (only what was
    /// read is reported).
    private var observationRegistrar: ObservationRegistrar {
        if let registrar { return registrar.registrar }
        let made = RegistrarBox()
        registrar = made
        return made.registrar
    }

    /// A registrar in a box: a field of a fixed size. The registrar's type, from a module built
    /// for library evolution, has a size known only at run time: as a field, it would make every
    /// field after it, and every field of a subclass, found through an offset read at each
    /// access.
    private final class RegistrarBox {
        let registrar = ObservationRegistrar()
    }

    private func factor(_ bit: ControlState, _ keyPath: @autoclosure () -> KeyPath<Control, Bool>) -> Bool {
        observationRegistrar.access(self, keyPath: keyPath())
        observation.read(bit)
        return factors.contains(bit)
    }

    /// Sets or clears a built-in factor's bit, updating the state when it changes.
    private func setFactor(_ bit: ControlState, _ isOn: Bool, _ keyPath: @autoclosure () -> KeyPath<Control, Bool>) {
        guard factors.contains(bit) != isOn else { return }
        if observation.readSinceReported.contains(bit) {
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
        observation.reported(bit)
        let registrar = observationRegistrar  // one copy for both calls
        registrar.willSet(self, keyPath: keyPath)
        factors.formSymmetricDifference(bit)
        registrar.didSet(self, keyPath: keyPath)
    }

    /// Reports a change of ``state`` to Observation if it differs from what was read.
    @inline(never)
    private func reportStateChange() {
        let state = currentState
        guard state != observation.observedState else { return }
        observation.reported(ObservationState.stateBit)
        observation.observedState = state
        let registrar = observationRegistrar
        registrar.willSet(self, keyPath: Self.stateKeyPath)
        registrar.didSet(self, keyPath: Self.stateKeyPath)
    }

    /// The state whose bound values are applied: ``state``, except inside a transition (which
    /// applies at its commit) or after ``endTransition()`` until the next change.
    public var appliedState: ControlState { resolver.appliedState }

    /// Re-evaluates the state and applies it (outside a transition).
    ///
    /// Factor changes call this for you. Call it after changing something a custom-state
    /// predicate reads that is not a ``StateFactor``.
    public func updateState() {
        guard !changesPlainly else { return moveOrApply() }
        if observation.stateWasRead { reportStateChange() }
        guard !transitions.isOpen else { return }
        applyState()
    }

    /// Whether a state change needs nothing but a move or an apply of the resolver: the state
    /// was not read since its change was last reported, no transition is open, no predicate
    /// derives a custom state and nothing ever subscribed (a subscription that went may leave
    /// its place: ``SubscriptionState/isEmpty`` tells).
    var partsAllowPlainChanges: Bool {
        !observation.stateWasRead && !transitions.isOpen && registeredStates.derived.isEmpty && subscriptions.tokens == nil
    }

    /// Applies the state. A control whose state changes while another control applies its
    /// own (a dependency: that control's bound value is this one's factor) is applied after
    /// it, by the outermost apply, from a queue: a chain of dependencies of any length
    /// propagates without nesting calls, and a cycle is stopped with a diagnostic. A change
    /// that writes nothing — no rule reads the bits that moved, and no subscriber or predicate
    /// is to run — only moves the resolver to the state, at once.
    @inline(__always)
    func applyState() {
        // Without a predicate to run, the state is known before anything starts.
        guard registeredStates.derived.isEmpty else { return applyStateWritingValues(nil) }
        guard subscriptions.isEmpty else { return applyStateWritingValues(factorsAndPushedStates) }
        moveOrApply()
    }

    /// ``applyState()`` with no predicate to run and no subscriber to tell (``changesPlainly``
    /// says so, or the caller checked): a change of bits no rule reads only moves the resolver —
    /// at once, even from another control's setter, as it writes nothing that could come back.
    @inline(__always)
    private func moveOrApply() {
        let state = factorsAndPushedStates
        guard resolver.moveWithoutWrites(to: state) else { return applyStateWritingValues(state) }
    }

    /// ``applyState()`` past the move without writes, to `state` (nil: the state its
    /// predicates give, once writing has begun). Out of line: the move is the common case, and
    /// needs none of this frame.
    @inline(never)
    private func applyStateWritingValues(_ state: ControlState?) {
        if propagation.isDraining {  // a control's apply is running (isWriting implies isDraining)
            if resolver.isApplyingChanges { return applyOwnState() }  // finished by the running apply
            if propagation.isWriting { return propagation.enqueue(self) }  // from another's setter
            return applyOwnState()  // e.g. from a subscription handler
        }
        propagation.isDraining = true
        if let state { applyOwnState { state } } else { applyOwnState { currentState } }
        if propagation.hasQueued { propagation.applyQueued() }
        propagation.finishDraining()
    }

    /// Applies the control's own state (the propagation's queue calls it too).
    @inline(__always)
    func applyOwnState() { applyOwnState { currentState } }

    /// Applies the control's own state, which `state` gives once writing has begun (a predicate
    /// that changes the control, say registers a state, is then queued behind it).
    @inline(__always)
    private func applyOwnState(_ state: () -> ControlState) {
        let wasWriting = propagation.isWriting
        propagation.isWriting = true
        do {
            try resolver.apply(state(), calledBy: self)
        } catch {
            Control.diagnosticHandler(
                ControlDiagnostic(
                    "\(type(of: self)): \(error.description); applied state stays [\(appliedState)]"))
        }
        propagation.isWriting = wasWriting
        // A nested apply (from a setter) is finished by the outer one, which notifies.
        guard !subscriptions.isEmpty, !resolver.isApplyingChanges else { return }
        notifySubscriptions()
    }
}
