import Testing
@testable import StatefulEngine

/// The resolver's custom descriptor names: an id per name, the rules of each counted, and a
/// name forgotten with its last rule.
@Suite("StateResolver parts: PredicateNames")
struct PredicateNamesTests {
    @Test func oneNameOneIdAndANewNameANewId() {
        var names = PredicateNames()
        let first = names.addRule(named: "com.example.a") { _ in true }.box
        let second = names.addRule(named: "com.example.a") { _ in false }.box
        let other = names.addRule(named: "com.example.b") { _ in true }.box
        #expect(first.id == second.id && other.id != first.id)
        #expect(names.count == 2)
        #expect(names.id(of: "com.example.a") == first.id && names.id(of: "com.example.c") == nil)
        // The name's predicate is the one given last.
        #expect(names[first.id]?.name == "com.example.a" && names[first.id]?.predicate([]) == false)
    }

    @Test func aNameIsForgottenWithItsLastRule() {
        var names = PredicateNames()
        let id = names.addRule(named: "com.example.a") { _ in true }.box.id
        _ = names.addRule(named: "com.example.a") { _ in true }
        names.ruleReleased(id)
        #expect(names.id(of: "com.example.a") == id && names.count == 1)
        names.ruleReleased(id)
        #expect(names.id(of: "com.example.a") == nil && names[id] == nil && names.count == 0)
        // Released again (a rule the table held twice is not counted twice): nothing happens.
        names.ruleReleased(id)
        #expect(names.count == 0)
    }

    @Test func aForgottenNameUsedAgainGetsANewId() {
        var names = PredicateNames()
        let old = names.addRule(named: "com.example.a") { _ in true }.box.id
        names.ruleReleased(old)
        let new = names.addRule(named: "com.example.a") { _ in true }.box.id
        #expect(new != old && names[old] == nil && names[new]?.name == "com.example.a")
    }

    /// The names are a value: held in a class made with the first name, which a copy that
    /// changes copies first.
    @Test func aCopyOfTheNamesChangesApart() {
        var names = PredicateNames()
        let id = names.addRule(named: "com.example.a") { _ in true }.box.id
        var copy = names
        _ = copy.addRule(named: "com.example.b") { _ in true }
        copy.ruleReleased(id)
        #expect(names.count == 1 && names.id(of: "com.example.a") == id && names.id(of: "com.example.b") == nil)
        #expect(copy.count == 1 && copy.id(of: "com.example.a") == nil && copy.id(of: "com.example.b") != nil)
        // A copy that only counts a rule out copies too.
        var second = names
        second.ruleReleased(id)
        #expect(second.count == 0 && names.count == 1 && names.id(of: "com.example.a") == id)
    }

    /// A name's new predicate replaces the one its entry held, and is handed back for the
    /// caller to release once it no longer accesses the names (its captures' deinits may call
    /// back); so is the latest predicate of a name forgotten with its last rule.
    @Test func aReplacedOrForgottenPredicateIsHandedBack() {
        final class Capture: @unchecked Sendable {
            var onDeinit: () -> Void = {}
            deinit { onDeinit() }
        }
        var names = PredicateNames()
        var released = false
        do {
            let capture = Capture()
            _ = names.addRule(named: "com.example.a") { _ in withExtendedLifetime(capture) { true } }
            capture.onDeinit = { released = true }
        }
        #expect(!released)  // the name's entry holds the predicate
        var replaced = names.addRule(named: "com.example.a") { _ in false }.replaced
        #expect(replaced != nil && !released)
        replaced = nil
        #expect(released)
        let id = names.id(of: "com.example.a")!
        #expect(names.ruleReleased(id) == nil)  // one rule of the name is left
        #expect(names.ruleReleased(id)?.predicate([]) == false && names.count == 0)
    }
}
