// How a control registers targets and actions and sends events to them.

/// One registration: a selector and its target (or the responder chain), or a closure action.
final class ActionRegistration {
    let action: ControlAction
    weak var target: AnyObject?
    let closure: Action?
    let targetsResponderChain: Bool
    var events: ControlEvents

    init(action: ControlAction, target: AnyObject?, closure: Action? = nil, events: ControlEvents) {
        self.action = action
        self.target = closure ?? target
        self.closure = closure
        self.targetsResponderChain = target == nil && closure == nil
        self.events = events
    }

    /// Whether the registration lost its target (which was held weakly).
    var isDead: Bool { !targetsResponderChain && target == nil }
}

extension Control {
    /// Registers `action` of `target` for `events`. The target is held weakly; a nil target
    /// sends the action up the responder chain. Adding the same target and action again
    /// merges the events: the action is delivered once per sending.
    public func addTarget<Target: AnyObject>(_ target: Target?, action: Selector<Target>, for events: ControlEvents) {
        if let existing = registrations.first(where: {
            $0.closure == nil && $0.action.name == action.name && ($0.target === target && !$0.isDead)
                && $0.targetsResponderChain == (target == nil)
        }) {
            existing.events.formUnion(events)
        } else {
            registrations.append(ActionRegistration(action: ControlAction(action), target: target, events: events))
        }
    }

    /// Removes `events` from the registrations of `target` and `action`; a nil target or a nil
    /// action matches every one. Registrations left without events are removed. Closure
    /// actions are removed with ``removeAction(identifiedBy:for:)``.
    public func removeTarget(_ target: AnyObject?, action: String?, for events: ControlEvents = .allEvents) {
        for registration in registrations
        where registration.closure == nil
            && (target == nil || registration.target === target)
            && (action == nil || registration.action.name == action)
        {
            registration.events.subtract(events)
        }
        registrations.removeAll { $0.events.isEmpty || $0.isDead }
    }

    /// Removes `events` from the registrations of `target` and `action`.
    public func removeTarget<Target: AnyObject>(_ target: Target?, action: Selector<Target>, for events: ControlEvents = .allEvents) {
        removeTarget(target, action: action.name, for: events)
    }

    /// The live targets with registered actions, in registration order, each once.
    public var allTargets: [AnyObject] {
        var seen = Set<ObjectIdentifier>()
        return registrations.compactMap { registration in
            guard registration.closure == nil, let target = registration.target,
                seen.insert(ObjectIdentifier(target)).inserted
            else { return nil }
            return target
        }
    }

    /// The events with at least one live registration.
    public var allControlEvents: ControlEvents {
        registrations.filter { !$0.isDead }.reduce(into: []) { $0.formUnion($1.events) }
    }

    /// The names of the actions registered for `target` (nil: the responder chain) on any of
    /// `event`, or nil when there is none.
    public func actions(forTarget target: AnyObject?, forControlEvent event: ControlEvents) -> [String]? {
        let names = registrations.filter {
            $0.closure == nil && !$0.isDead && !$0.events.isDisjoint(with: event)
                && (target == nil ? $0.targetsResponderChain : $0.target === target)
        }.map(\.action.name)
        return names.isEmpty ? nil : names
    }

    /// Registers a closure action for `events`. An action with the same identifier is
    /// replaced in place and its events merged.
    public func addAction(_ action: Action, for events: ControlEvents) {
        let registration = ActionRegistration(action: Action.performSelector, target: nil, closure: action, events: events)
        if let index = registrations.firstIndex(where: { $0.closure?.identifier == action.identifier }) {
            registration.events.formUnion(registrations[index].events)
            registrations[index] = registration
        } else {
            registrations.append(registration)
        }
    }

    /// Removes `events` from the closure action with `identifier`; removes it when none is left.
    public func removeAction(identifiedBy identifier: Action.Identifier, for events: ControlEvents = .allEvents) {
        for registration in registrations where registration.closure?.identifier == identifier {
            registration.events.subtract(events)
        }
        registrations.removeAll { $0.events.isEmpty }
    }

    /// Removes `events` from `action` (by its identifier).
    public func removeAction(_ action: Action, for events: ControlEvents = .allEvents) {
        removeAction(identifiedBy: action.identifier, for: events)
    }

    /// Sends `events`: every registration whose events intersect them is delivered once, in
    /// registration order, through ``sendAction(_:to:for:)``.
    ///
    /// Works on a disabled control too. Inside a transition the events are queued and sent,
    /// in order, after the state is applied at commit.
    ///
    /// A sending delivers to a snapshot of the registrations taken when it starts: a handler
    /// that adds a registration does not reach it in this sending, and one it removes is still
    /// delivered to in this sending (unless its target was deallocated). Events a handler
    /// sends are delivered at once, before the rest of this sending. Registrations whose
    /// target was deallocated are skipped and pruned.
    public func sendActions(for events: ControlEvents) {
        send(Event(events: events))
    }

    func send(_ event: Event) {
        guard !transitions.isOpen else {
            transitions.queue(event)
            return
        }
        dispatch(event)
    }

    func dispatch(_ event: Event) {
        let snapshot = registrations.filter { !$0.events.isDisjoint(with: event.events) }
        for registration in snapshot {
            if registration.targetsResponderChain {
                sendAction(registration.action, to: nil, for: event)
            } else if let target = registration.target {
                sendAction(registration.action, to: target, for: event)
            }
        }
        registrations.removeAll(where: \.isDead)
    }
}
