// A control's part that records what Observation was told: what was read since its change was
// last reported, and the state last read or reported.

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
