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

    private var idsByName: [String: UInt64] = [:]
    private var entries: [UInt64: Entry] = [:]
    private var lastID: UInt64 = 0

    /// The number of names some rule uses.
    var count: Int { idsByName.count }

    /// The id of `name`, nil when no rule uses it.
    func id(of name: String) -> UInt64? { idsByName[name] }

    /// The name and latest predicate of `id`; nil for an id no rule uses any more.
    subscript(id: UInt64) -> (name: String, predicate: @Sendable (ControlState) -> Bool)? {
        entries[id].map { ($0.name, $0.box.predicate) }
    }

    /// Counts a new rule of `name` and returns the box that carries `predicate` to the C table
    /// for it (with the name's id, a new id for a new name). The table holds the box until it
    /// releases the rule; ``ruleReleased(_:)`` counts it out.
    mutating func addRule(named name: String, _ predicate: @escaping @Sendable (ControlState) -> Bool) -> PredicateBox {
        let id: UInt64
        if let known = idsByName[name] {
            id = known
        } else {
            lastID += 1
            id = lastID
            idsByName[name] = id
        }
        let box = PredicateBox(id: id, predicate)
        entries[id] = Entry(name: name, box: box, rules: (entries[id]?.rules ?? 0) + 1)
        return box
    }

    /// Counts out a rule of the name `id` that the table released; the name is forgotten with
    /// its last rule.
    mutating func ruleReleased(_ id: UInt64) {
        guard let entry = entries[id] else { return }
        if entry.rules > 1 {
            entries[id]?.rules = entry.rules - 1
        } else {
            entries[id] = nil
            idsByName[entry.name] = nil
        }
    }
}
