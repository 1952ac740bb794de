import Testing

@testable import StatefulEngine

/// A target's bound key path ids: held once each, whichever is removed, with no allocation for
/// the first.
@Suite("StateResolver parts: BoundKeyPathIDs")
struct BoundKeyPathIDsTests {
    @Test func holdsWhatWasInsertedAndNotRemoved() {
        var ids = BoundKeyPathIDs()
        #expect(ids.isEmpty && Array(ids).isEmpty)
        for id: UInt32 in [7, 3, 9, 1] { ids.insert(id) }
        #expect(ids.sorted() == [1, 3, 7, 9] && !ids.isEmpty)
        ids.remove(7)  // the inline one: another takes its place
        #expect(ids.sorted() == [1, 3, 9])
        ids.remove(3)
        ids.remove(42)  // not held: nothing changes
        #expect(ids.sorted() == [1, 9])
        ids.remove(9)
        ids.remove(1)
        #expect(ids.isEmpty && Array(ids).isEmpty)
        ids.insert(5)
        #expect(Array(ids) == [5])
        ids.removeAll()
        #expect(ids.isEmpty)
    }
}
