// A dictionary for a resolver's parts that is small in most resolvers: a control binds a few
// properties of a few targets.

/// A dictionary that holds up to ``inlineCapacity`` entries in one array, searched in order,
/// and a Swift `Dictionary` beyond: a few entries cost an array's bytes (a `Dictionary` of two
/// entries allocates room for four, and its header) and no hashing.
///
/// Once it has grown past ``inlineCapacity`` it stays a `Dictionary` until ``removeAll()``.
struct CompactDictionary<Key: Hashable, Value> {
    /// The entries while there are few; empty once ``table`` holds them.
    private var entries: [(key: Key, value: Value)] = []
    /// The entries once there were more than ``inlineCapacity``.
    private var table: [Key: Value]?

    /// The most entries held in the array.
    static var inlineCapacity: Int { 8 }

    /// The number of entries.
    var count: Int { table?.count ?? entries.count }

    /// Whether there is no entry.
    var isEmpty: Bool { count == 0 }

    /// The value of `key`; setting nil removes it.
    ///
    /// - Complexity: O(``inlineCapacity``) while small, else a hash lookup.
    subscript(key: Key) -> Value? {
        get {
            if let table { return table[key] }
            return entries.first { $0.key == key }?.value
        }
        set {
            guard let newValue else {
                removeValue(forKey: key)
                return
            }
            if table != nil {
                table![key] = newValue
            } else if let index = entries.firstIndex(where: { $0.key == key }) {
                entries[index].value = newValue
            } else if entries.count < Self.inlineCapacity {
                entries.append((key, newValue))
            } else {
                var table = Dictionary(uniqueKeysWithValues: entries)
                table[key] = newValue
                (self.table, entries) = (table, [])
            }
        }
    }

    /// Removes the entry of `key` and returns its value.
    @discardableResult
    mutating func removeValue(forKey key: Key) -> Value? {
        if table != nil { return table!.removeValue(forKey: key) }
        guard let index = entries.firstIndex(where: { $0.key == key }) else { return nil }
        return entries.remove(at: index).value
    }

    /// Removes every entry; the dictionary is small again.
    mutating func removeAll() { (entries, table) = ([], nil) }
}
