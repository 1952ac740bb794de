// A resolver's part that names custom descriptors: name ↔ id, and the rules of each name.

/// The names of the custom descriptors a resolver's rules use, with an id each (what the C
/// table stores) and the number of rules of each: a name is forgotten with its last rule.
///
/// Ids are never reused: a name forgotten and used again gets a new id, so a rule of the
/// forgotten name still held by the table (until it is released) never passes for a new one.
struct PredicateNames {
    private struct Entry {
        let name: String
        /// The latest predicate given for the name (the one a descriptor read back carries).
        var box: PredicateBox
        var rules: Int
    }

    /// The names, their entries and the last id handed out: made with the first name (most
    /// resolvers have none, and hold one word), copied when a copy of the names changes.
    private final class Table {
        var idsByName: [String: UInt64] = [:]
        var entries: [UInt64: Entry] = [:]
        var lastID: UInt64 = 0

        func copy() -> Table {
            let copy = Table()
            (copy.idsByName, copy.entries, copy.lastID) = (idsByName, entries, lastID)
            return copy
        }
    }

    private var table: Table?

    /// The table to change: made, or copied when shared with a copy of the names.
    private mutating func uniqueTable() -> Table {
        if table == nil || !isKnownUniquelyReferenced(&table!) { table = table?.copy() ?? Table() }
        return table!
    }

    /// The number of names some rule uses.
    var count: Int { table?.idsByName.count ?? 0 }

    /// The id of `name`, nil when no rule uses it.
    func id(of name: String) -> UInt64? { table?.idsByName[name] }

    /// The name and latest predicate of `id`; nil for an id no rule uses any more.
    subscript(id: UInt64) -> (name: String, predicate: @Sendable (ControlState) -> Bool)? {
        table?.entries[id].map { ($0.name, $0.box.predicate) }
    }

    /// Counts a new rule of `name` and returns the box that carries `predicate` to the C table
    /// for it (with the name's id, a new id for a new name). The table holds the box until it
    /// releases the rule; ``ruleReleased(_:)`` counts it out.
    ///
    /// Also returns the predicate the name carried before, now replaced: the caller releases it
    /// once it no longer accesses the names (its captures' deinits are user code, and may bind).
    mutating func addRule(
        named name: String, _ predicate: @escaping @Sendable (ControlState) -> Bool
    ) -> (box: PredicateBox, replaced: PredicateBox?) {
        let table = uniqueTable()
        let id: UInt64
        if let known = table.idsByName[name] {
            id = known
        } else {
            table.lastID += 1
            id = table.lastID
            table.idsByName[name] = id
        }
        let box = PredicateBox(id: id, predicate)
        let entry = Entry(name: name, box: box, rules: (table.entries[id]?.rules ?? 0) + 1)
        return (box, table.entries.updateValue(entry, forKey: id)?.box)
    }

    /// Counts out a rule of the name `id` that the table released; the name is forgotten with
    /// its last rule, and then its latest predicate is returned, for the caller to release once
    /// it no longer accesses the names (as ``addRule(named:_:)``'s replaced one).
    @discardableResult
    mutating func ruleReleased(_ id: UInt64) -> PredicateBox? {
        guard let entry = table?.entries[id] else { return nil }
        let table = uniqueTable()
        guard entry.rules == 1 else {
            table.entries[id]?.rules = entry.rules - 1
            return nil
        }
        table.entries[id] = nil
        table.idsByName[entry.name] = nil
        return entry.box
    }
}
