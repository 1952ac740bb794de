import Testing
@testable import StatefulEngine

/// The resolver's custom descriptor names: an id per name, the rules of each counted, and a
/// name forgotten with its last rule.
@Suite("StateResolver parts: PredicateNames")
struct PredicateNamesTests {
    @Test func oneNameOneIdAndANewNameANewId() {
        var names = PredicateNames()
        let first = names.addRule(named: "com.example.a") { _ in true }
        let second = names.addRule(named: "com.example.a") { _ in false }
        let other = names.addRule(named: "com.example.b") { _ in true }
        #expect(first.id == second.id && other.id != first.id)
        #expect(names.count == 2)
        #expect(names.id(of: "com.example.a") == first.id && names.id(of: "com.example.c") == nil)
        // The name's predicate is the one given last.
        #expect(names[first.id]?.name == "com.example.a" && names[first.id]?.predicate([]) == false)
    }

    @Test func aNameIsForgottenWithItsLastRule() {
        var names = PredicateNames()
        let id = names.addRule(named: "com.example.a") { _ in true }.id
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
        let old = names.addRule(named: "com.example.a") { _ in true }.id
        names.ruleReleased(old)
        let new = names.addRule(named: "com.example.a") { _ in true }.id
        #expect(new != old && names[old] == nil && names[new]?.name == "com.example.a")
    }

    /// The names are a value: held in a class made with the first name, which a copy that
    /// changes copies first.
    @Test func aCopyOfTheNamesChangesApart() {
        var names = PredicateNames()
        let id = names.addRule(named: "com.example.a") { _ in true }.id
        var copy = names
        _ = copy.addRule(named: "com.example.b") { _ in true }
        copy.ruleReleased(id)
        #expect(names.count == 1 && names.id(of: "com.example.a") == id && names.id(of: "com.example.b") == nil)
        #expect(copy.count == 1 && copy.id(of: "com.example.a") == nil && copy.id(of: "com.example.b") != nil)
    }
}
