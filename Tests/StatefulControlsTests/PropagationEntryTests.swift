import Testing
@testable import StatefulControls

/// A control's entry in the propagation queue: queued once at a time, its queueings counted per
/// drain, and a dependency cycle found once when they pass the limit.
@Suite("Control parts: Propagation.Entry")
@MainActor
struct PropagationEntryTests {
    @Test func aControlWaitsInTheQueueOnceAtATime() {
        var entry = Propagation.Entry()
        let first = entry.join(0), again = entry.join(0)
        #expect(first == .queued && again == .alreadyQueued && entry.isQueued)
        entry.leave()
        let afterLeaving = entry.join(0)
        #expect(afterLeaving == .queued)
    }

    @Test func queueingsPastTheLimitInOneDrainAreACycleFoundOnce() {
        var entry = Propagation.Entry()
        var outcomes: [Propagation.Entry.Outcome] = []
        for _ in 0..<(StateResolver.maximumRounds + 3) {
            outcomes.append(entry.join(7))
            entry.leave()
        }
        #expect(outcomes.prefix(StateResolver.maximumRounds).allSatisfy { $0 == .queued })
        #expect(Array(outcomes.suffix(3)) == [.cycleFound, .dropped, .dropped])
    }

    @Test func aNewDrainCountsFromZero() {
        var entry = Propagation.Entry()
        for _ in 0..<(StateResolver.maximumRounds + 1) {
            _ = entry.join(1)
            entry.leave()
        }
        let inTheNextDrain = entry.join(2)
        #expect(inTheNextDrain == .queued)
    }
}
