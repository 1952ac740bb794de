// The parts a control stores beside its factors, one value per concern, each read and changed
// in place by the Control file of that concern: what Observation was told, the registered custom
// states, the subscriptions, the transitions, and the propagation of applies between controls.
// A change of state consults all of them (Control.applyState), so they are read together here.

// MARK: - ObservationState

/// What a control's observable getters were read for (see ``Control`` and
/// `withObservationTracking`): only the changes of what was read are reported (Observation's
/// tracking is one-shot: an observer reads again to observe again), so a control no one
/// observes pays no registrar call.
///
/// A read stays recorded for two reports, not one: a tracking closure that reads a factor and
/// then changes it makes the first report itself, before `withObservationTracking` installs its
/// observer (when the closure returns); the second reaches that observer. (A closure that
/// changes what it read twice or more still loses its observer; telling its reads from the
/// control's own would need Observation's tracking state, which is not public API.)
///
/// The registrar itself is stored in the control, made at its first read: a registrar stored
/// in this (mutable) value would be copied, with a retain and a release, at every factor read
/// and change.
struct ObservationState {
    /// The bit of ``readSinceReported`` that stands for ``Control/state`` (the others are
    /// factor bits).
    static var stateBit: ControlState { ControlState(rawValue: 1 << 63) }

    /// Factor bits, and ``stateBit`` for the state, read since their change was last reported
    /// twice.
    private(set) var readSinceReported: ControlState = []
    /// The bits of ``readSinceReported`` reported once since they were read.
    private var reportedOnce: ControlState = []
    /// The state when it was last read or reported: a change is reported when the state differs.
    var observedState: ControlState = []

    /// Whether ``Control/state`` was read since its change was last reported twice.
    var stateWasRead: Bool { readSinceReported.contains(Self.stateBit) }

    /// Records a read of `bit` (a factor's, or ``stateBit``).
    mutating func read(_ bit: ControlState) {
        readSinceReported.insert(bit)
        reportedOnce.remove(bit)
    }

    /// Records a report of `bit`'s change: the second since its read forgets the read.
    mutating func reported(_ bit: ControlState) {
        if reportedOnce.contains(bit) {
            readSinceReported.remove(bit)
            reportedOnce.remove(bit)
        } else {
            reportedOnce.insert(bit)
        }
    }
}

// MARK: - RegisteredStates

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

// MARK: - SubscriptionState

/// A control's subscriptions to its state (see ``Control/subscribe(to:_:)``): the tokens,
/// held weakly, the subscriptions of its async sequences, which the control keeps while it
/// lives, and whether a notification runs (a handler's state change does not nest one).
@MainActor
struct SubscriptionState {
    /// The subscriptions, made with the first one (a control nobody subscribes to allocates
    /// nothing for them).
    var tokens: WeakTokens<StateSubscription>?
    /// The subscriptions of ``Control/appliedStates(bufferingNewest:)``.
    var streams: [StateSubscription] = []
    var isNotifying = false

    /// Whether no subscription is held.
    var isEmpty: Bool { tokens?.isEmpty ?? true }
}

// MARK: - TransitionState

/// A control's transitions: the number open (they nest) and the events sent while one is
/// open, in the order they were sent, handed back when the outermost one closes.
struct TransitionState {
    /// The number of transitions open.
    private(set) var depth = 0
    /// The events sent while a transition was open.
    private(set) var queuedEvents: [Event] = []
    /// The observers of ``Control/observeTransitions(_:)``, made with the first one (a control
    /// nobody observes allocates nothing for them).
    var observers: WeakTokens<TransitionObserver>?

    /// Whether a transition is open.
    var isOpen: Bool { depth > 0 }

    /// Opens a transition (inside those open).
    mutating func open() { depth += 1 }

    /// Keeps `event` until the outermost transition closes.
    mutating func queue(_ event: Event) { queuedEvents.append(event) }

    /// Closes the innermost transition (one must be open); returns the queued events, no longer
    /// kept, when it was the outermost, nil while others stay open.
    mutating func close() -> [Event]? {
        depth -= 1
        guard depth == 0 else { return nil }
        let events = queuedEvents
        queuedEvents = []
        return events
    }
}

// MARK: - Propagation

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
        switch control.propagationEntry.join(drain) {
        case .queued:
            queue.append(control)
        case .cycleFound:
            Control.diagnosticHandler(
                ControlDiagnostic(
                    "\(type(of: control)): applying the state did not settle: controls keep changing each other's state (a dependency cycle); stopped at [\(control.appliedState)]"
                ))
        case .alreadyQueued, .dropped:
            return
        }
    }

    var hasQueued: Bool { !queue.isEmpty }

    /// Applies the queued controls in order; those they change join the queue.
    @inline(never)
    func applyQueued() {
        while head < queue.count {
            let control = queue[head]
            head += 1
            control.propagationEntry.leave()
            control.applyOwnState()
        }
        // One queued control is the common case (a field enabling its button): removeLast does
        // less than removeAll(keepingCapacity:), which resets the whole buffer.
        if queue.count == 1 {
            queue.removeLast()
        } else {
            queue.removeAll(keepingCapacity: queue.count <= 1024)
        }
        head = 0
    }

    func finishDraining() {
        isDraining = false
        drain &+= 1
    }
}

extension Propagation {
    /// A control's entry in the propagation, stored on the control and read and changed by the
    /// propagation only: whether it waits in the queue, and how often it was queued in the
    /// drain it last joined.
    struct Entry {
        /// What ``join(_:)`` decided.
        enum Outcome: Equatable {
            /// The control joins the queue.
            case queued
            /// The control waits in the queue already.
            case alreadyQueued
            /// The control was queued more than `StateResolver.maximumRounds` times in this
            /// drain, just now: a dependency cycle, reported once; it is not queued.
            case cycleFound
            /// The control is in a cycle found before in this drain: not queued.
            case dropped
        }

        private(set) var isQueued = false
        /// The times the control was queued in the drain it last joined, counted to one past
        /// `StateResolver.maximumRounds`: 32 bits, in the word of ``isQueued``.
        private var rounds: Int32 = 0
        /// The drain the control last joined.
        private var drain: UInt = 0

        /// Counts a queueing in `drain` (the rounds start at 0 in a new drain) and tells
        /// whether the control joins the queue.
        mutating func join(_ drain: UInt) -> Outcome {
            if isQueued { return .alreadyQueued }
            if self.drain != drain { (self.drain, rounds) = (drain, 0) }
            guard Int(rounds) < StateResolver.maximumRounds else {
                if Int(rounds) > StateResolver.maximumRounds { return .dropped }
                rounds += 1
                return .cycleFound
            }
            rounds += 1
            isQueued = true
            return .queued
        }

        /// Takes the control out of the queue (its apply is next).
        mutating func leave() { isQueued = false }
    }
}
