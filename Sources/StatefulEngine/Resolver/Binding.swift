// A resolver's record of one bound (target, key path).

/// One (target, key path): how to write it, its default value, and the value it holds.
final class Binding {
    let target: BoundTarget
    let keyPathID: UInt32
    let writer: AnyPropertyWriter
    let defaultValue: AnyValueBox
    /// The pair's slot in the C table, as of its last `csr_set`.
    @exclusivity(unchecked) var slot: UInt32 = 0
    /// The version (see ``ValueSlab``) of the value last written to the property, 0 for the
    /// default: a write is skipped when the value to write is this one, and a binding whose
    /// rules changed is brought to its winner by comparing with it.
    @exclusivity(unchecked) var writtenVersion: UInt64 = 0
    let key: UInt64

    init(target: BoundTarget, keyPathID: UInt32, writer: AnyPropertyWriter, defaultValue: AnyValueBox) {
        self.target = target
        self.keyPathID = keyPathID
        self.writer = writer
        self.defaultValue = defaultValue
        self.key = StateResolver.key(target.id, keyPathID)
    }
}
