// The model-based reentrancy test's operations and their seeded generator.

import Foundation
import SeededRandom
import StatefulControls
import Testing

// MARK: Operations

enum Property: CaseIterable {
    case a, b, token
    /// A new target's value: the default its bindings capture (see the file's documentation).
    var initial: Int? { self == .token ? nil : 0 }
}

enum Factor: CaseIterable { case isEnabled, isSelected, isHighlighted, isFocused, isRaised }

/// The custom states a `Subject` can register: `raised` follows its `isRaised` factor, `odd`
/// is on while exactly one of selected and focused is.
enum Custom: CaseIterable {
    case raised, odd
    // The test process shares 8 application bits among all suites: these two reuse the names
    // (and so the bits) ControlTests allocates; a control registers each at most once.
    static let raisedState = try! ControlState.allocate(named: "com.example.tests.switch.on")
    static let oddState = try! ControlState.allocate(named: "com.example.tests.switch.loud")
    var state: ControlState { self == .raised ? Self.raisedState : Self.oddState }
}

/// A pure predicate for `.custom` descriptors (a predicate must not call the resolver).
enum Predicate: String, CaseIterable {
    case oddBitCount = "odd bit count", noCustomBit = "no custom bit"
    func matches(_ state: ControlState) -> Bool {
        switch self {
        case .oddBitCount: state.rawValue.nonzeroBitCount % 2 == 1
        case .noCustomBit: state.isDisjoint(with: .application)
        }
    }
}

/// A descriptor as data: printable, comparable (by the library's identity) and simplifiable.
struct Rule: Equatable, CustomStringConvertible {
    enum Mode: Equatable { case exactly, containing, notContaining, containingAny, containingNone, custom(Predicate) }
    static let maskModes: [Mode] = [.exactly, .containing, .notContaining, .containingAny, .containingNone]
    static let bits: [(ControlState, String)] = [
        (.highlighted, "highlighted"), (.disabled, "disabled"), (.selected, "selected"), (.focused, "focused"),
        (Custom.raisedState, "raised"), (Custom.oddState, "odd"),
    ]
    var mode: Mode, mask: ControlState, priority: Int32
    init(_ mode: Mode, _ mask: ControlState, _ priority: Int32) { (self.mode, self.mask, self.priority) = (mode, mask, priority) }

    var descriptor: StateDescriptor {
        switch mode {
        case .exactly: .exactly(mask, priority: priority)
        case .containing: .containing(mask, priority: priority)
        case .notContaining: .notContaining(mask, priority: priority)
        case .containingAny: .containingAny(mask, priority: priority)
        case .containingNone: .containingNone(mask, priority: priority)
        case .custom(let predicate): .custom(predicate.rawValue, priority: priority) { predicate.matches($0) }
        }
    }

    var simplifications: [Rule] {
        (priority == 1 ? [] : [Rule(mode, mask, 1)])
            + Self.bits.filter { mask.contains($0.0) }.map { Rule(mode, mask.subtracting($0.0), priority) }
    }

    var description: String {
        let body =
            switch mode {
            case .exactly: "exactly(\(Self.name(mask)))"
            case .containing: "containing(\(Self.name(mask)))"
            case .notContaining: "notContaining(\(Self.name(mask)))"
            case .containingAny: "containingAny(\(Self.name(mask)))"
            case .containingNone: "containingNone(\(Self.name(mask)))"
            case .custom(let predicate): "custom(\"\(predicate.rawValue)\")"
            }
        return "\(body) @\(priority)"
    }

    /// A state's bits by their short names, as `selected|raised`.
    static func name(_ state: ControlState) -> String {
        let names = bits.filter { state.contains($0.0) }.map(\.1)
        return names.isEmpty ? "normal" : names.joined(separator: "|")
    }
}

/// One call on the control (or on the test's targets); targets are named by slot, `t0`–`t2`.
indirect enum Op: Sendable, CustomStringConvertible {
    /// Binds `value` (for `token`, a `Token` with that id running `onDeinit` when released).
    case set(Int, Property, Int, Rule, onDeinit: Op? = nil)
    case removeValue(Int, Property, Rule)
    case removeValues(Int, Property)
    case removeTarget(Int)
    case removeAllValues
    case factor(Factor, Bool)
    case register(Custom)
    case beginTransition
    /// Commits the open transition; nothing when none is open.
    case commitTransition
    /// Releases the target in the slot, which gets a new one.
    case drop(Int)
    /// Arms the property with `action`: its writes run the actions armed, one a write, in order.
    case arm(Int, Property, Op)

    var description: String {
        switch self {
        case let .set(slot, property, value, rule, onDeinit):
            let shown = property != .token ? "\(value)" : "Token(\(value)\(onDeinit.map { ", deinit: { \($0) }" } ?? ""))"
            return "t\(slot).\(property) = \(shown) when \(rule)"
        case let .removeValue(slot, property, rule): return "removeValue(for: t\(slot).\(property), when: \(rule))"
        case .removeValues(let slot, let property): return "removeValues(for: t\(slot).\(property))"
        case .removeTarget(let slot): return "removeValues(of: t\(slot))"
        case .removeAllValues: return "removeAllValues()"
        case let .factor(factor, on): return "\(factor) = \(on)"
        case let .register(custom): return "register(\(custom))"
        case .beginTransition: return "beginTransition()"
        case .commitTransition: return "commitTransition()"
        case let .drop(slot): return "t\(slot) is released"
        case let .arm(slot, property, action): return "on a write of t\(slot).\(property): { \(action) }"
        }
    }

    /// Simpler variants, most radical first: a nested action dropped or simplified, the rule
    /// simplified, value 1, target t0, property `a`.
    var simplifications: [Op] {
        func slot0(_ slot: Int, _ make: (Int) -> Op) -> [Op] { slot == 0 ? [] : [make(0)] }
        func propertyA(_ property: Property, _ make: (Property) -> Op) -> [Op] { property == .a ? [] : [make(.a)] }
        switch self {
        case let .set(slot, property, value, rule, onDeinit):
            let actions = onDeinit.map { [nil] + $0.simplifications } ?? []
            return actions.map { .set(slot, property, value, rule, onDeinit: $0) }
                + rule.simplifications.map { .set(slot, property, value, $0, onDeinit: onDeinit) }
                + (value == 1 ? [] : [.set(slot, property, 1, rule, onDeinit: onDeinit)])
                + slot0(slot) { .set($0, property, value, rule, onDeinit: onDeinit) }
                + (onDeinit == nil ? propertyA(property) { .set(slot, $0, value, rule) } : [])
        case let .removeValue(slot, property, rule):
            return rule.simplifications.map { .removeValue(slot, property, $0) }
                + slot0(slot) { .removeValue($0, property, rule) } + propertyA(property) { .removeValue(slot, $0, rule) }
        case .removeValues(let slot, let property):
            return slot0(slot) { .removeValues($0, property) } + propertyA(property) { .removeValues(slot, $0) }
        case .removeTarget(let slot): return slot0(slot) { .removeTarget($0) }
        case .drop(let slot): return slot0(slot) { .drop($0) }
        case let .arm(slot, property, action):
            return action.simplifications.map { .arm(slot, property, $0) }
                + slot0(slot) { .arm($0, property, action) } + propertyA(property) { .arm(slot, $0, action) }
        case .removeAllValues, .factor, .register, .beginTransition, .commitTransition: return []
        }
    }
}

// MARK: Generating

struct Generator {
    var rng: SplitMix64
    /// The rules generated so far: most removals remove one, some sets set one again (which
    /// makes it the most recent), and most actions are armed on a property bound recently.
    var bound: [(slot: Int, property: Property, rule: Rule)] = []
    init(seed: UInt64) { rng = SplitMix64(seed: seed) }

    mutating func sequence() -> [Op] { (0..<Int.random(in: 20...40, using: &rng)).map { _ in op(nested: false) } }

    /// A target's slot and a property; two times in three one bound recently, so that
    /// operations and actions meet.
    mutating func pair() -> (slot: Int, property: Property) {
        if Int.random(in: 0..<3, using: &rng) > 0, let recent = bound.suffix(4).randomElement(using: &rng) {
            return (recent.slot, recent.property)
        }
        return (Int.random(in: 0..<World.slots, using: &rng), Property.allCases.randomElement(using: &rng)!)
    }

    /// An operation; a nested one (an action) arms nothing and carries no deinit action.
    mutating func op(nested: Bool) -> Op {
        let (slot, property) = pair()
        switch Int.random(in: 0..<100, using: &rng) {
        case 0..<7 where !bound.isEmpty:
            let old = bound.randomElement(using: &rng)!
            return .removeValue(old.slot, old.property, Bool.random(using: &rng) ? old.rule : rule())
        case 7..<10: return .removeValues(slot, property)
        case 10..<12: return .removeTarget(slot)
        case 12..<13: return .removeAllValues
        case 13..<33: return .factor(Factor.allCases.randomElement(using: &rng)!, Bool.random(using: &rng))
        case 33..<35: return .register(Custom.allCases.randomElement(using: &rng)!)
        case 35..<37: return .beginTransition
        case 37..<40: return .commitTransition
        case 40..<43: return .drop(slot)
        case 43..<65 where !nested:
            // A quarter of the actions bind the very property being written.
            let action = Int.random(in: 0..<4, using: &rng) == 0 ? set(slot, property, nested: true) : op(nested: true)
            return .arm(slot, property, action)
        default: return set(slot, property, nested: nested)
        }
    }

    mutating func set(_ slot: Int, _ property: Property, nested: Bool) -> Op {
        let earlier = bound.filter { $0.slot == slot && $0.property == property }.randomElement(using: &rng)?.rule
        let rule = Int.random(in: 0..<4, using: &rng) == 0 ? earlier ?? rule() : rule()
        bound.append((slot, property, rule))
        let onDeinit = property == .token && !nested && Bool.random(using: &rng) ? op(nested: true) : nil
        return .set(slot, property, Int.random(in: 1...9, using: &rng), rule, onDeinit: onDeinit)
    }

    mutating func rule() -> Rule {
        let priority = ([1, 2, 500, 750, 999, 1000] as [Int32]).randomElement(using: &rng)!
        let modeIndex = Int.random(in: 0...Rule.maskModes.count, using: &rng)
        guard modeIndex < Rule.maskModes.count else {
            return Rule(.custom(Predicate.allCases.randomElement(using: &rng)!), [], priority)
        }
        let mask = (0..<Int.random(in: 0...2, using: &rng)).reduce(into: ControlState()) { mask, _ in
            mask.insert(Rule.bits.randomElement(using: &rng)!.0)
        }
        return Rule(Rule.maskModes[modeIndex], mask, priority)
    }
}
