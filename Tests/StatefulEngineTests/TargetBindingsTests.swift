import Testing

@testable import StatefulEngine

/// A target's bindings in the store: one per key path id, found and removed whichever it is,
/// listed by key path id, with no allocation for the first.
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
}
