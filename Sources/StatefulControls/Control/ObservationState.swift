// A control's part that records what Observation was told: what was read since its change was
// last reported, and the state last read.

/// What a control's observable getters were read for (see ``Control`` and
/// `withObservationTracking`): only the changes of what was read are reported (Observation's
/// tracking is one-shot: an observer reads again to observe again), so a control no one
/// observes pays no registrar call.
///
/// The registrar itself is a constant of the control: a registrar stored in this (mutable)
/// value would be copied, with a retain and a release, at every factor read and change.
struct ObservationState {
    /// The bit of ``readSinceReported`` that stands for ``Control/state`` (the others are
    /// factor bits).
    static var stateBit: ControlState { ControlState(rawValue: 1 << 63) }

    /// Factor bits, and ``stateBit`` for the state, read since their change was last reported.
    var readSinceReported: ControlState = []
    /// The state when it was last read: a change is reported when the state differs.
    var observedState: ControlState = []
}
