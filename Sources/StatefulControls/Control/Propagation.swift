// The queue that applies, in turn, the controls whose state changed while another control
// applied its own, and each control's entry in it.

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
