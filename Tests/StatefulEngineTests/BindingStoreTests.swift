import CStateResolver
import Testing
@testable import StatefulEngine

/// The resolver's binding store: bindings by key, indexed by the C table's slots with the index
/// grown as needed and following the table as it reuses slots, and retired while an apply runs.
@Suite("StateResolver parts: BindingStore")
struct BindingStoreTests {
    final class Target { var value = 0 }

    /// A binding of `\Target.value` under target id `targetID`.
    static func binding(_ target: Target, targetID: UInt32, keyPathID: UInt32 = 0) -> Binding {
        let bound = BoundTarget.make(target, id: targetID, access: .current, onMainActor: false)
        let box = ValueBox(target.value)
        let writer = processStrategy.writer(
            \Target.value, targetClass: Target.self, box: box, accessors: KeyPathAccessors { \Target.value })
        return TypedBinding(target.value, BindingFields(target: bound, keyPathID: keyPathID, writer: writer))
    }

    static func change(_ binding: Binding, slot: UInt32) -> csr_change {
        csr_change(
            target: binding.target.id, key_path: binding.keyPathID, old_value: CSR_NO_VALUE,
            new_value: CSR_NO_VALUE, slot: slot)
    }

    @Test func bindingsAreFoundByKeyAndBySlotGrowingTheIndex() {
        var store = BindingStore()
        let target = Target()
        let first = Self.binding(target, targetID: 2), second = Self.binding(target, targetID: 1)
        store.insert(first)
        store.insert(second)
        #expect(store.count == 2 && store[first.key] === first)
        #expect(store.sortedKeys == [second.key, first.key])
        // Not indexed yet: the slot index is empty.
        #expect(store.binding(inSlot: 0) == nil)
        store.index(first, at: 5)
        #expect(first.slot == 5)
        #expect(store.binding(inSlot: 5)?.takeUnretainedValue() === first)
        store.index(second, at: 1)
        #expect(store.binding(inSlot: 1)?.takeUnretainedValue() === second)
        // Beyond the index: nil, not a trap.
        #expect(store.binding(inSlot: 900) == nil)
    }

    @Test func aSlotTheTableReusedIndexesItsNewBinding() {
        var store = BindingStore()
        let target = Target()
        let old = Self.binding(target, targetID: 1), new = Self.binding(target, targetID: 2)
        store.insert(old)
        store.index(old, at: 3)
        store.insert(new)
        // `new`'s pair got the slot `old` is indexed at: indexing it replaces `old` there.
        store.index(new, at: 3)
        #expect(store.binding(inSlot: 3)?.takeUnretainedValue() === new)
        // Removing `old` leaves the slot to `new`.
        store.remove(old.key, retiring: false)
        #expect(store.binding(inSlot: 3)?.takeUnretainedValue() === new)
        #expect(store[old.key] == nil && store.count == 1)
        // Given another slot, `new` leaves its old one.
        store.index(new, at: 7)
        #expect(store.binding(inSlot: 3) == nil && store.binding(inSlot: 7)?.takeUnretainedValue() === new)
    }

    @Test func aBindingRemovedDuringAnApplyIsRetiredUntilTaken() {
        var store = BindingStore()
        let target = Target()
        let binding = Self.binding(target, targetID: 1)
        weak var released: Binding?
        do {
            let retired = Self.binding(target, targetID: 2)
            released = retired
            store.insert(binding)
            store.insert(retired)
            store.index(retired, at: 0)
        }
        let removed = store.remove(released!.key, retiring: true)
        #expect(removed != nil)
        #expect(store.binding(inSlot: 0) == nil)
        #expect(store.retired.count == 1 && released != nil)
        let removedNow = store.remove(binding.key, retiring: false), again = store.remove(binding.key, retiring: true)
        #expect(removedNow === binding && again == nil && store.retired.count == 1)
        let taken = store.takeRetired()
        #expect(taken.count == 1)
        withExtendedLifetime(taken) {}
        #expect(store.retired.isEmpty && store.isEmpty)
    }

    @Test func aBindingTheTableMovedKeepsOneSlotEntry() {
        var store = BindingStore()
        let binding = Self.binding(Target(), targetID: 1)
        store.insert(binding)
        store.index(binding, at: 3)
        store.index(binding, at: 5)  // its rules went and came back: the table gave it another slot
        #expect(store.binding(inSlot: 3) == nil)
        #expect(store.binding(inSlot: 5)?.takeUnretainedValue() === binding)
        #expect(store.removeAll(retiring: false).flatMap(\.sorted).count == 1)
    }

    @Test func removingAllReturnsEachBindingOnceByTarget() {
        var store = BindingStore()
        let target = Target()
        let bindings = [(2, 0), (1, 5), (1, 1), (3, 0)].map { Self.binding(target, targetID: UInt32($0.0), keyPathID: UInt32($0.1)) }
        for binding in bindings { store.insert(binding) }
        store.index(bindings[0], at: 2)
        store.index(bindings[1], at: 0)  // the others are not indexed yet
        let removed = store.removeAll(retiring: true)
        #expect(removed.flatMap(\.sorted).map(\.key) == [bindings[2], bindings[1], bindings[0], bindings[3]].map(\.key))
        #expect(store.isEmpty && store.binding(inSlot: 0) == nil && store[bindings[3].key] == nil)
        #expect(store.retired.count == 4)
    }

    @Test func aTargetsBindingsAreFoundByItsIdInKeyOrder() {
        var store = BindingStore()
        let target = Target()
        let bindings = [(3, 2), (1, 5), (3, 0), (1, 1)].map { Self.binding(target, targetID: UInt32($0.0), keyPathID: UInt32($0.1)) }
        for binding in bindings { store.insert(binding) }
        #expect(store.count == 4 && store.bindings(ofTarget: 3).map(\.keyPathID) == [0, 2])
        #expect(store.sortedKeys == [bindings[3], bindings[1], bindings[2], bindings[0]].map(\.key))
        #expect(!store.hasBindings(ofTarget: 2) && store.bindings(ofTarget: 9).isEmpty && store[StateResolver.key(9, 0)] == nil)
        bindings[0].writtenVersion = 4
        bindings[3].writtenVersion = 2
        #expect(store.holdingRuleValues.map(\.key) == [bindings[3].key, bindings[0].key])  // first-bind order
        #expect(store.remove(bindings[1].key, retiring: false) === bindings[1])
        #expect(store.remove(bindings[3].key, retiring: false) === bindings[3])
        #expect(!store.hasBindings(ofTarget: 1) && store.hasBindings(ofTarget: 3) && store.count == 2)
    }
}
