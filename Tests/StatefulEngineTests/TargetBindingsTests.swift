import Testing

@testable import StatefulEngine

/// A target's bindings in the store: one per key path id, found and removed whichever it is,
/// listed by key path id, with no allocation for the first four.
@Suite("StateResolver parts: TargetBindings")
struct TargetBindingsTests {
    @Test func holdsWhatWasInsertedAndNotRemoved() {
        let target = BindingStoreTests.Target()
        let bindings = [7, 3, 9, 1].map { BindingStoreTests.binding(target, targetID: 1, keyPathID: $0) }
        var held = TargetBindings()
        #expect(held.isEmpty && held.sorted.isEmpty)
        for binding in bindings { held.insert(binding) }
        #expect(held.sorted.map(\.keyPathID) == [1, 3, 7, 9] && !held.isEmpty)
        #expect(held.binding(9) === bindings[2] && held.binding(42) == nil)
        #expect(held.remove(7) === bindings[0])  // the inline one: another takes its place
        #expect(held.sorted.map(\.keyPathID) == [1, 3, 9] && held.binding(7) == nil)
        #expect(held.remove(3) === bindings[1])
        #expect(held.remove(42) == nil)  // not held: nothing changes
        #expect(held.sorted.map(\.keyPathID) == [1, 9])
        _ = held.remove(9)
        _ = held.remove(1)
        #expect(held.isEmpty && held.sorted.isEmpty)
    }

    /// Past four, the others go to an array: removals from either part keep them all, and the
    /// inline ones without gaps.
    @Test func holdsMoreThanFourAndRemovesFromEitherPart() {
        let target = BindingStoreTests.Target()
        let bindings = (1...7).map { BindingStoreTests.binding(target, targetID: 1, keyPathID: UInt32($0)) }
        var held = TargetBindings()
        for binding in bindings { held.insert(binding) }
        #expect(held.count == 7 && held.sorted.map(\.keyPathID) == [1, 2, 3, 4, 5, 6, 7])
        #expect(held.binding(6) === bindings[5] && held.binding(2) === bindings[1])
        #expect(held.remove(2) === bindings[1])  // inline: the last (an other) takes its place
        #expect(held.count == 6 && held.binding(7) === bindings[6] && held.binding(2) == nil)
        #expect(held.remove(5) === bindings[4])  // an other
        #expect(held.sorted.map(\.keyPathID) == [1, 3, 4, 6, 7])
        for id: UInt32 in [1, 7, 4] { #expect(held.remove(id)?.keyPathID == id) }
        #expect(held.count == 2 && held.sorted.map(\.keyPathID) == [3, 6])
        held.insert(bindings[0])
        #expect(held.count == 3 && held.binding(1) === bindings[0] && held.contains { $0.keyPathID == 6 })
        for id: UInt32 in [3, 6, 1] { _ = held.remove(id) }
        #expect(held.isEmpty && held.count == 0 && !held.contains { _ in true })
    }
}
