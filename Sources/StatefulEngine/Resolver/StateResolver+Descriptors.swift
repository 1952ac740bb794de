// How a resolver maps state descriptors to the C table's and back (custom ones through the
// PredicateNames part).

internal import CStateResolver

extension StateResolver {
    /// The descriptor of a rule of the C table, as `csr_explain` (a candidate's `rule`) and
    /// `csr_lint` (a lint rule's `rule`) report it.
    func descriptor(of rule: csr_rule) -> StateDescriptor {
        let state = ControlState(rawValue: UInt(rule.mask))
        switch rule.mode {
        case CSR_EXACTLY: return .exactly(state, priority: rule.priority)
        case CSR_CONTAINING: return .containing(state, priority: rule.priority)
        case CSR_NOT_CONTAINING: return .notContaining(state, priority: rule.priority)
        case CSR_CONTAINING_ANY: return .containingAny(state, priority: rule.priority)
        case CSR_CONTAINING_NONE: return .containingNone(state, priority: rule.priority)
        default:
            guard let predicate = predicateNames[rule.predicate_id] else {
                internalInconsistency("a custom rule of predicate id \(rule.predicate_id), a name no rule uses")
            }
            return .custom(predicate.name, priority: rule.priority, predicate.predicate)
        }
    }

    /// The C descriptor of `d` for a new rule: a custom one gets its name's id (a new name a
    /// new id) and a predicate box, counted as one of the name's rules until the table
    /// releases it (the box's retain is the table's). The name's predicate it replaces waits
    /// in the slab for the next drain (see ``drainReleased()``).
    func cDescriptor(forSetting d: StateDescriptor) -> csr_descriptor {
        var c = Self.cDescriptor(d)
        guard case .custom(let name) = d.mode, let predicate = d.predicate else { return c }
        let (box, replaced) = predicateNames.addRule(named: name, predicate)
        if let replaced { slab.park(replaced) }
        c.predicate_id = box.id
        c.predicate_context = Unmanaged.passRetained(box).toOpaque()
        return c
    }

    /// The C descriptor of `d` to find an existing rule; nil for a custom name no rule uses.
    func existingCDescriptor(_ d: StateDescriptor) -> csr_descriptor? {
        var c = Self.cDescriptor(d)
        guard case .custom(let name) = d.mode else { return c }
        guard let id = predicateNames.id(of: name) else { return nil }
        c.predicate_id = id
        return c
    }

    /// The C descriptor of `d`; a custom one with the trampoline and no predicate yet.
    static func cDescriptor(_ d: StateDescriptor) -> csr_descriptor {
        var c = csr_descriptor(
            mode: CSR_EXACTLY, mask: UInt64(d.state.rawValue), priority: d.priority,
            predicate: nil, predicate_context: nil, predicate_id: 0)
        switch d.mode {
        case .exactly: c.mode = CSR_EXACTLY
        case .containing: c.mode = CSR_CONTAINING
        case .notContaining: c.mode = CSR_NOT_CONTAINING
        case .containingAny: c.mode = CSR_CONTAINING_ANY
        case .containingNone: c.mode = CSR_CONTAINING_NONE
        case .custom:
            c.mode = CSR_CUSTOM
            c.predicate = predicateTrampoline
        }
        return c
    }
}

/// Calls a custom descriptor's predicate from C.
private let predicateTrampoline: csr_predicate_fn = { state, context in
    Unmanaged<PredicateBox>.fromOpaque(context!).takeUnretainedValue().predicate(ControlState(rawValue: UInt(state)))
}
