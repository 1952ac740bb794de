// A resolver's record of one bound (target, key path), which holds the property's default value.

/// One (target, key path): how to write it, the value it holds, and (in its ``TypedBinding``)
/// its default value — the property's value before its first binding, written back when no
/// rule matches. The default is held by the record itself, not in a box of its own: one
/// allocation a binding fewer.
@usableFromInline
package class Binding {
    final let target: BoundTarget
    /// The writer of the property, which every binding of it on targets of this class shares.
    final let writer: AnyPropertyWriter
    /// The version (see ``ValueSlab``) of the value last written to the property, 0 for the
    /// default: a write is skipped when the value to write is this one, and a binding whose
    /// rules changed is brought to its winner by comparing with it.
    @exclusivity(unchecked) final var writtenVersion: UInt64 = 0
    /// The ``writtenVersion`` of a binding that holds a value of a rule table its resolver left
    /// for the shared empty one: no value has it (a slab would hand it out after 2⁶³ values),
    /// so the next write writes.
    static let versionOfTableLeft: UInt64 = .max
    /// The key path's id in the resolver (see `KeyPathIDs`).
    final let keyPathID: UInt32
    /// The pair's slot in the C table, as of its last `csr_set`.
    @exclusivity(unchecked) final var slot: UInt32 = 0

    init(_ fields: BindingFields) {
        (target, writer, keyPathID) = (fields.target, fields.writer, fields.keyPathID)
    }

    /// The target's id (high 32 bits) and the key path's (low 32 bits): see `StateResolver.key`.
    /// Computed, not stored (a record of 48 bytes, not 56, before its default): the apply loop
    /// finds a binding by its slot and does not read it.
    final var key: UInt64 { StateResolver.key(target.id, keyPathID) }

    /// The default value, boxed (a new box: for queries, not for the apply loop).
    var defaultBox: AnyValueBox { internalInconsistency("Binding is abstract") }

    /// An inline value of the slab (see ``ValueSlab``), of the property's type, boxed (a new
    /// box: for queries).
    func box(inline bits: UInt64) -> AnyValueBox { internalInconsistency("Binding is abstract") }
}

/// A binding and its default value, of the property's type.
///
/// Made where the binding entry point is inlined, in the caller's code (see
/// ``KeyPathAccessors``): there the class's generic metadata is known without a lookup.
@usableFromInline
package final class TypedBinding<Value>: Binding {
    /// The default value; `var` only so that the direct access can take its address (never
    /// set).
    @usableFromInline @exclusivity(unchecked) final var defaultValue: Value

    @usableFromInline
    package init(_ defaultValue: Value, _ fields: BindingFields) {
        self.defaultValue = defaultValue
        super.init(fields)
    }

    override var defaultBox: AnyValueBox { ValueBox(defaultValue) }

    override func box(inline bits: UInt64) -> AnyValueBox { ValueBox<Value>(ValueSlab.value(ofBits: bits)) }
}

/// What a new ``Binding`` is made with besides its default value.
@usableFromInline
package struct BindingFields {
    let target: BoundTarget
    let keyPathID: UInt32
    let writer: AnyPropertyWriter
}
