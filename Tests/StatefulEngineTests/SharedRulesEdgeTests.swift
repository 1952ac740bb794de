import Testing

@testable import StatefulEngine

/// Shared rules at their edges: a value shared only when it is the same value, bit for bit (a
/// resolver writes the table's value, not its own); the versions of a table left; a value
/// replaced, released at once; a removal that removes nothing, which keeps the rules shared (on
/// the shared empty table too).
/// Each case once made a bound property end other than its own binds say, or kept a value.
@MainActor @Suite("StateResolver: shared rules, values told apart and tables left")
struct SharedRulesEdgeTests {
    final class Target {
        var a = 0 { didSet { onA?(a) } }
        var b = 0
        var c = 0
        var onA: ((Int) -> Void)?
        var title = ""
        var token: Token?
        var any: AnyHashable = AnyHashable(0)
        var point = Point(x: 1, y: 1)
        var object: Member?
    }

    /// A class whose `==` compares names, not identity.
    final class Token: Hashable {
        let name: String
        init(_ name: String) { self.name = name }
        static func == (lhs: Token, rhs: Token) -> Bool { lhs.name == rhs.name }
        func hash(into hasher: inout Hasher) { hasher.combine(name) }
    }

    /// A class compared by identity (Hashable through ObjectIdentifier).
    final class Member: Hashable {
        static func == (lhs: Member, rhs: Member) -> Bool { lhs === rhs }
        func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
    }

    struct Point: Hashable {
        var x: Double
        var y: Double
    }

    static func sharing() -> StateResolver { StateResolver(sharingRules: true) }

    /// `removeAllValues()` on shared rules moves to the shared empty table before it writes the
    /// defaults back; a setter that binds then starts a new table whose versions count from 1
    /// again, while a binding not written back yet recorded a version of the table left: the
    /// new value must not be taken for written.
    @Test func aSetterThatBindsWhileEveryValueIsRemoved() throws {
        let resolver = Self.sharing()
        let target = Target()
        // Distinctive values: no other test makes these histories. Key path ids: a 0, c 1.
        try resolver.setValue(0x5EED_0A01, for: \.a, of: target, when: .containing([]))  // version 1
        try resolver.setValue(0x5EED_0C02, for: \.c, of: target, when: .containing([]))  // version 2
        #expect((target.a, target.c) == (0x5EED_0A01, 0x5EED_0C02))
        var once = true
        target.onA = { [unowned target] value in
            guard value == 0, once else { return }
            once = false
            // a's default is written back first (key path id 0): bind b (id 2), then c again.
            do {
                try resolver.setValue(0x5EED_0B11, for: \.b, of: target, when: .containing([]))
                try resolver.setValue(0x5EED_0C12, for: \.c, of: target, when: .containing([]))
            } catch { Issue.record(error) }
        }
        resolver.removeAllValues()
        #expect(target.b == resolver.value(for: \.b, of: target, in: resolver.appliedState) ?? -1)
        #expect(target.c == resolver.value(for: \.c, of: target, in: resolver.appliedState) ?? -1)
    }

    /// X binds `first`, then Y binds `second` (== first) the same way: Y's target should hold
    /// Y's value.
    static func bindTwice<Value>(
        _ keyPath: ReferenceWritableKeyPath<Target, Value>, _ first: Value, _ second: Value
    ) throws -> (Target, StateResolver, StateResolver) {
        let (x, y) = (Self.sharing(), Self.sharing())
        let (tx, ty) = (Target(), Target())
        try x.setValue(first, for: keyPath, of: tx, when: .containing(.selected, priority: 4242))
        try y.setValue(second, for: keyPath, of: ty, when: .containing(.selected, priority: 4242))
        try x.apply(.selected)
        try y.apply(.selected)
        return (ty, x, y)
    }

    /// Equal values whose bits differ are not shared: sharing the other's table would write the
    /// other resolver's value.
    @Test func aClassValueEqualToAnothersIsAppliedAsItself() throws {
        let mine = Token("review-token")
        let (target, _, _) = try Self.bindTwice(\.token, Token("review-token"), mine)
        #expect(target.token === mine)
    }

    @Test func aStringCanonicallyEquivalentToAnothersIsAppliedAsItself() throws {
        let (target, _, _) = try Self.bindTwice(\.title, "review-caf\u{E9}", "review-cafe\u{301}")
        #expect(Array(target.title.unicodeScalars) == Array("review-cafe\u{301}".unicodeScalars))
    }

    @Test func anAnyHashableOfAnotherTypeIsAppliedAsItself() throws {
        let (target, _, _) = try Self.bindTwice(\.any, AnyHashable(Int(0x5EED)), AnyHashable(Int16(0x5EED)))
        #expect(target.any.base is Int16)
    }

    @Test func negativeZeroIsAppliedAsItself() throws {
        let (target, _, _) = try Self.bindTwice(\.point, Point(x: 0, y: 4242), Point(x: -0.0, y: 4242))
        #expect(target.point.x.sign == .minus)
    }

    /// A value whose deinit calls back (an object: its bind is shared, its bits its reference).
    final class Hook: Hashable {
        var onDeinit: (() -> Void)?
        init(onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }
        deinit { onDeinit?() }
        static func == (lhs: Hook, rhs: Hook) -> Bool { lhs === rhs }
        func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
    }

    final class HookTarget {
        var hook: Hook?
        var b = 0
        var c = 0
    }

    /// The same stale write as `aSetterThatBindsWhileEveryValueIsRemoved`, from a value's deinit:
    /// the table left for the shared empty one goes in `removeAllValues`' drain, and its value's
    /// deinit binds before the bindings are written back.
    @Test func aValueDeinitThatBindsWhileEveryValueIsRemoved() throws {
        let resolver = Self.sharing()
        let target = HookTarget()
        do {
            let hook = Hook { [unowned target] in
                do {
                    try resolver.setValue(0x5EED_1B11, for: \.b, of: target, when: .containing([]))  // version 1
                    try resolver.setValue(0x5EED_1C12, for: \.c, of: target, when: .containing([]))  // version 2
                } catch { Issue.record(error) }
            }
            try resolver.setValue(hook, for: \.hook, of: target, when: .containing([]))  // version 1
        }
        try resolver.setValue(0x5EED_1C02, for: \.c, of: target, when: .containing([]))  // version 2
        target.hook = nil  // the table holds the hook's last reference
        resolver.removeAllValues()
        #expect(target.c == resolver.value(for: \.c, of: target, in: resolver.appliedState) ?? -1)
    }

    /// A value replaced on shared rules is released at once (the bind makes the rules the
    /// resolver's own: a table's history would keep it for the table's life).
    @Test func aReplacedValueIsReleased() throws {
        let resolver = Self.sharing()
        let target = Target()
        weak var first: Member?
        do {
            let member = Member()
            first = member
            try resolver.setValue(member, for: \.object, of: target, when: .containing(.selected, priority: 99))
        }
        try resolver.setValue(Member(), for: \.object, of: target, when: .containing(.selected, priority: 99))
        #expect(first == nil)
    }

    /// A removal that removes nothing changes no rule: the rules stay shared (no copy).
    @Test func aRemovalThatRemovesNothingKeepsTheRulesShared() throws {
        let (x, y) = (Self.sharing(), Self.sharing())
        let (tx, ty) = (Target(), Target())
        try x.setValue(0x6601, for: \.b, of: tx, when: .containing(.selected, priority: 66))
        try y.setValue(0x6601, for: \.b, of: ty, when: .containing(.selected, priority: 66))
        #expect(x.rules === y.rules)
        #expect(!y.removeValue(for: \.b, of: ty, when: .containing(.highlighted, priority: 66)))
        #expect(x.rules === y.rules)
    }

    /// `removeAllValues()` writes the defaults back on the shared empty table, where a binding
    /// of a target that died unseen is purged, and a setter may remove a value not written back
    /// yet. Neither removal finds a rule there, so neither copies the shared empty table: the
    /// resolver stays on it, and its next binds are shared (a copy kept them its own).
    @Test func removalsWhileEveryValueIsRemovedKeepTheSharedEmptyTable() throws {
        // A twin makes the same binds (the same ids) to targets that live, and removes them all.
        let (resolver, twin) = (Self.sharing(), Self.sharing())
        let (kept, twinsFirst, twinsSecond) = (Target(), Target(), Target())
        var dying: Target? = Target()
        try resolver.setValue(0x5EED_2A01, for: \.b, of: kept, when: .containing([]))
        try resolver.setValue(0x5EED_2A02, for: \.a, of: dying!, when: .containing([]))
        try twin.setValue(0x5EED_2A01, for: \.b, of: twinsFirst, when: .containing([]))
        try twin.setValue(0x5EED_2A02, for: \.a, of: twinsSecond, when: .containing([]))
        dying = nil
        resolver.removeAllValues()  // writing the defaults back finds the dead target: purged
        twin.removeAllValues()
        #expect(resolver.ruleCount == 0 && kept.b == 0)
        #expect(resolver.rules === RuleTable.empty)
        try resolver.setValue(0x5EED_2A03, for: \.a, of: kept, when: .containing(.selected, priority: 2077))
        try twin.setValue(0x5EED_2A03, for: \.a, of: twinsFirst, when: .containing(.selected, priority: 2077))
        #expect(resolver.rules === twin.rules)

        // A setter removes a value not written back yet (a's default is written back first).
        let removing = Self.sharing()
        let target = Target()
        try removing.setValue(0x5EED_2B01, for: \.a, of: target, when: .containing([]))
        try removing.setValue(0x5EED_2B02, for: \.c, of: target, when: .containing([]))
        target.onA = { [unowned target] _ in
            target.onA = nil
            removing.removeValues(for: \.c, of: target)
        }
        removing.removeAllValues()
        #expect(removing.ruleCount == 0 && (target.a, target.c) == (0, 0))
        #expect(removing.rules === RuleTable.empty)
    }
}
