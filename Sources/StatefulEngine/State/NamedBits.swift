// What the allocators of custom states and custom events share: single bits of an option set,
// given to names, each name one bit.

/// The outcome of giving a name a bit of a range (see `Dictionary.allocateBit(named:in:)`).
package enum BitAllocation<Bits> {
    /// The name's bit: the one it held already in the range, or the one just given to it.
    case named(Bits)
    /// The name holds this bit already, outside the range.
    case heldOutside(Bits)
    /// Every bit of the range is another name's: their names, lowest bit first.
    case full(holders: [String])
}

extension OptionSet where RawValue: FixedWidthInteger, Element == Self {
    /// The set's bits, lowest first, each as a set of its own.
    package var bits: [Self] {
        (0..<RawValue.bitWidth).map { Self(rawValue: 1 << $0) }.filter { contains($0) }
    }

    /// The bits in hexadecimal, as `0x10000`.
    package var hexadecimal: String { "0x" + String(rawValue, radix: 16, uppercase: true) }
}

extension Dictionary where Value == String, Key: OptionSet, Key.RawValue: FixedWidthInteger, Key.Element == Key {
    /// Gives `name` a bit of `range`: the bit it holds, else the lowest free one, recorded.
    ///
    /// - Complexity: O(*n*) in the names.
    package mutating func allocateBit(named name: String, in range: Key) -> BitAllocation<Key> {
        if let existing = first(where: { $0.value == name })?.key {
            return range.contains(existing) ? .named(existing) : .heldOutside(existing)
        }
        let bits = range.bits
        guard let free = bits.first(where: { self[$0] == nil }) else { return .full(holders: bits.map { self[$0]! }) }
        self[free] = name
        return .named(free)
    }
}
