import CStateResolver
import Testing
@testable import StatefulEngine

/// Where a resolver's applying stands: a nested apply only moves the request, every eighth
/// apply sweeps, rounds until the request settles (a cycle past the limit), and the bits that
/// tell two states apart.
@Suite("StateResolver parts: ApplyState and PendingChanges")
struct ApplyStateTests {
    @Test func aNestedApplyOnlyMovesTheRequest() {
        var state = ApplyState(applied: .selected)
        #expect(state.applied == .selected && state.requested == .selected)
        let began = state.begin(.disabled), nested = state.begin(.focused)
        #expect(began && !nested && state.isApplying)
        #expect(state.requested == .focused && state.applied == .selected)
    }

    @Test func everyEighthApplySweeps() {
        var state = ApplyState(applied: [])
        var sweeps: [Int] = []
        for apply in 1...24 {
            let began = state.begin([])
            #expect(began)
            if state.sweepsDeadTargets { sweeps.append(apply) }
            state.isApplying = false
        }
        #expect(sweeps == [8, 16, 24])
    }

    /// A state no rule tells from the applied one is moved to without an apply, counted as
    /// one (every eighth sweeps, as an apply does); a state a rule reads is left to `apply`,
    /// and nothing moves while an apply runs.
    @Test func aStateNoRuleTellsApartIsMovedToWithoutAnApply() {
        var state = ApplyState(applied: [])
        state.sensitiveBits = ControlState.selected.rawValue
        let movedToARuledState = state.move(to: .selected)
        #expect(!movedToARuledState && state.applied == [] && state.requested == [])
        var sweeps: [Int] = []
        for change in 1...16 {
            let next: ControlState = change.isMultiple(of: 2) ? [] : .focused
            let moved = state.move(to: next)
            #expect(moved)
            if state.sweepsDeadTargets { sweeps.append(change) }
            #expect(state.applied == next && state.requested == next)
        }
        #expect(sweeps == [8, 16])
        _ = state.begin(.focused)
        #expect(state.sweepsDeadTargets == false)  // the 17th
        let moved = state.move(to: [])
        #expect(!moved && state.requested == .focused)
    }

    @Test func roundsRunUntilTheRequestIsApplied() throws {
        var state = ApplyState(applied: [])
        _ = state.begin(.selected)
        var rounds = 0
        let round = try state.nextRound(&rounds)
        #expect(round?.from == [] && round?.to == .selected && state.applied == .selected && rounds == 1)
        state.requested = .focused  // a setter asked for another state
        let second = try state.nextRound(&rounds), third = try state.nextRound(&rounds)
        #expect(second?.to == .focused && third == nil && rounds == 2)
    }

    @Test func aRequestThatNeverSettlesIsACycle() throws {
        var state = ApplyState(applied: [])
        _ = state.begin(.selected)
        var rounds = 0
        for round in 0..<StateResolver.maximumRounds {
            let next = try state.nextRound(&rounds)
            #expect(next != nil)
            state.requested = round % 2 == 0 ? [] : .selected
        }
        var error: ResolverError?
        do { _ = try state.nextRound(&rounds) } catch let thrown { error = thrown }
        #expect(error == .cycle)
        #expect(state.requested == state.applied)
    }

    @Test func onlyTheSensitiveBitsTellStatesApart() {
        var state = ApplyState(applied: [])
        #expect(!state.distinguishes([], .selected))
        state.sensitiveBits = ControlState.selected.rawValue
        #expect(state.distinguishes([], .selected) && !state.distinguishes([], .focused))
        #expect(!state.distinguishes(.selected, [.selected, .focused]))
    }

    @Test func pendingChangesAreCurrentInPlaceAndStaleOnceDetached() {
        let changes = (0..<4).map { csr_change(target: 1, key_path: UInt32($0), old_value: 0, new_value: 1, slot: UInt32($0)) }
        /// The key path id of a change, and whether it was handed out current.
        func read(_ change: PendingChanges.Change?) -> (keyPath: UInt32, isCurrent: Bool)? {
            switch change {
            case .current(let change): (change.key_path, true)
            case .stale(let change): (change.key_path, false)
            case nil: nil
            }
        }
        var pending = PendingChanges()
        #expect(read(pending.next()) == nil)
        changes.withUnsafeBufferPointer { buffer in
            pending.begin(buffer)
            #expect(read(pending.next())! == (0, true))
            pending.detach()  // before the table frees the buffer, or a setter changes the rules
        }
        var rest: [UInt32] = []
        while let change = read(pending.next()) {
            #expect(!change.isCurrent)
            rest.append(change.keyPath)
        }
        #expect(rest == [1, 2, 3])
        pending.begin(stale: Array(changes[2...]))  // a diff made pair by pair: no slots
        #expect(read(pending.next())! == (2, false))
        changes.withUnsafeBufferPointer { buffer in
            pending.begin(buffer)
            #expect(read(pending.next())! == (0, true))
        }
    }
}
