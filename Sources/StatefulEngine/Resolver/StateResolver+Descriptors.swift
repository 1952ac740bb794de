// How a resolver maps state descriptors to the C table's and back (custom ones through the
// PredicateNames part).

internal import CStateResolver

extension StateResolver {
    /// The descriptor of a rule the table explains.
    func descriptor(of candidate: csr_candidate) -> StateDescriptor {
        descriptor(candidate.mode, candidate.mask, candidate.priority, candidate.predicate_id)
    }

    /// The descriptor of a rule a lint report lists.
    func descriptor(of rule: csr_lint_rule) -> StateDescriptor {
        descriptor(rule.mode, rule.mask, rule.priority, rule.predicate_id)
    }

    /// The descriptor of a rule of the C table.
    private func descriptor(_ mode: csr_mode, _ mask: UInt64, _ priority: Int32, _ predicateID: UInt64) -> StateDescriptor {
        let state = ControlState(rawValue: UInt(mask))
        switch mode {
        case CSR_EXACTLY: return .exactly(state, priority: priority)
        case CSR_CONTAINING: return .containing(state, priority: priority)
        case CSR_NOT_CONTAINING: return .notContaining(state, priority: priority)
        case CSR_CONTAINING_ANY: return .containingAny(state, priority: priority)
        case CSR_CONTAINING_NONE: return .containingNone(state, priority: priority)
        default:
            guard let predicate = predicateNames[predicateID] else {
                internalInconsistency("a custom rule of predicate id \(predicateID), a name no rule uses")
            }
            return .custom(predicate.name, priority: priority, predicate.predicate)
        }
    }

    /// The C descriptor of `d` for a new rule: a custom one gets its name's id (a new name a
    /// new id) and a predicate box, counted as one of the name's rules until the table
    /// releases it (the box's retain is the table's).
    func cDescriptor(forSetting d: StateDescriptor) -> csr_descriptor {
        var c = Self.cDescriptor(d)
        guard case .custom(let name) = d.mode, let predicate = d.predicate else { return c }
        let box = predicateNames.addRule(named: name, predicate)
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

    private static func cDescriptor(_ d: StateDescriptor) -> csr_descriptor {
        var c = csr_descriptor(mode: CSR_EXACTLY, mask: UInt64(d.state.rawValue), priority: d.priority,
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
