import Testing
@testable import StatefulEngine

/// The resolver's target registry: ids handed out in order and reused, records found by
/// object, and the round-robin sweep that finds deallocated targets.
@Suite("StateResolver parts: TargetRegistry")
struct TargetRegistryTests {
    final class Target {}

    @Test func idsAreHandedOutFromOneInOrder() throws {
        var registry = TargetRegistry()
        let objects = (0..<3).map { _ in Target() }
        let ids = try objects.map { try registry.add($0, access: .current, onMainActor: false).id }
        #expect(ids == [1, 2, 3])
        #expect(registry.nextID == 4 && registry.count == 3)
        for object in objects { #expect(registry.record(at: object)?.object === object) }
    }

    @Test func theIdsOfRemovedTargetsAreReusedMostRecentlyFreedFirst() throws {
        var registry = TargetRegistry()
        let objects = (0..<4).map { _ in Target() }
        let records = try objects.map { try registry.add($0, access: .current, onMainActor: false) }
        registry.remove(records[1])
        registry.remove(records[2])
        #expect(!registry.contains(records[1]) && registry.contains(records[0]))
        #expect(registry.record(at: objects[1]) == nil)
        let newcomers = (0..<3).map { _ in Target() }
        let ids = try newcomers.map { try registry.add($0, access: .current, onMainActor: false).id }
        #expect(ids == [3, 2, 5])
        #expect(registry.nextID == 6 && registry.count == 5)
    }

    @Test func theSweepChecksEveryTargetInTurnAndStopsAtADeadOne() throws {
        var registry = TargetRegistry()
        var objects: [Target?] = (0..<4).map { _ in Target() }
        let records = try objects.map { try registry.add($0!, access: .current, onMainActor: false) }
        // Every target lives: each step moves on, round and round.
        let allLive = (0..<8).map { _ in registry.nextDeadTarget() }
        #expect(allLive.allSatisfy { $0 == nil })
        objects[2] = nil
        // 0 and 1 live; 2 is dead, and stays under the cursor until it is removed.
        let steps = (0..<4).map { _ in registry.nextDeadTarget() }
        #expect(steps[0] == nil && steps[1] == nil && steps[2] === records[2] && steps[3] === records[2])
        registry.remove(records[2])
        #expect(registry.count == 3)
        // Its freed id is a step of its own, then 3, then the sweep wraps to 0 and goes round.
        objects[0] = nil
        let after = (0..<3).map { _ in registry.nextDeadTarget() }
        #expect(after[0] == nil && after[1] == nil && after[2] === records[0])
        withExtendedLifetime(objects) {}
    }

    @Test func aFreedIdIsSweptAgainOnceReused() throws {
        var registry = TargetRegistry()
        let objects: [Target?] = (0..<2).map { _ in Target() }
        let records = try objects.map { try registry.add($0!, access: .current, onMainActor: false) }
        registry.remove(records[0])
        #expect(registry.count == 1 && registry.record(at: objects[0]!) == nil)
        // The newcomer takes id 1 and is checked there.
        var newcomer: Target? = Target()
        let reused = try registry.add(newcomer!, access: .current, onMainActor: false)
        #expect(reused.id == 1 && registry.count == 2)
        newcomer = nil
        let steps = (0..<2).map { _ in registry.nextDeadTarget() }
        #expect(steps[0] === reused && steps[1] === reused)
        registry.removeAll()
        #expect(registry.count == 0 && registry.nextDeadTarget() == nil && registry.record(at: objects[1]!) == nil)
        withExtendedLifetime((objects, newcomer)) {}
    }

    /// Records are found by object whether the registry searches its ids (a few targets) or
    /// looks addresses up (more than eight), across the switch, removals and reused ids.
    @Test func recordsAreFoundByObjectWithFewTargetsAndWithMany() throws {
        var registry = TargetRegistry()
        var objects = (0..<20).map { _ in Target() }
        var records: [BoundTarget] = []
        for object in objects {
            records.append(try registry.add(object, access: .current, onMainActor: false))
            for (index, earlier) in objects.prefix(records.count).enumerated() {
                #expect(registry.record(at: earlier) === records[index])
            }
        }
        let outsider = Target()
        #expect(registry.record(at: outsider) == nil)
        // Removed: not found; its id goes to a newcomer, found under it.
        registry.remove(records[3])
        #expect(registry.record(at: objects[3]) == nil && registry.record(at: objects[4]) === records[4])
        objects[3] = Target()
        records[3] = try registry.add(objects[3], access: .current, onMainActor: false)
        #expect(records[3].id == 4 && registry.record(at: objects[3]) === records[3])
        // Removing everything starts small again.
        registry.removeAll()
        #expect(registry.record(at: objects[0]) == nil)
        let again = try registry.add(objects[0], access: .current, onMainActor: false)
        #expect(again.id == 1 && registry.record(at: objects[0]) === again && registry.record(at: objects[1]) == nil)
        withExtendedLifetime((objects, outsider)) {}
    }
}
