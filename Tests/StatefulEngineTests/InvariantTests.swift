import CStateResolver
import Testing
@testable import StatefulEngine

/// `checkInvariants()`: sound through binds, applies and removals; a slab broken on purpose, or
/// a value freed under a rule that holds it, is reported until mended.
@Suite("StateResolver: checkInvariants")
struct InvariantTests {
    final class Target { var count = 0, title = "" }

    @Test func holdThroughBindsAppliesAndRemovals() throws {
        let resolver = StateResolver(), targets = [Target(), Target()]
        #expect(resolver.checkInvariants() == nil)
        for (i, target) in targets.enumerated() {
            try resolver.setValue(i + 1, for: \.count, of: target, when: .containing(.selected))
            try resolver.setValue("on", for: \.title, of: target, when: .containing(.highlighted))
            #expect(resolver.checkInvariants() == nil)
        }
        for state in [ControlState.selected, .highlighted, .normal] {
            try resolver.apply(state)
            #expect(resolver.checkInvariants() == nil)
        }
        #expect(resolver.removeValue(for: \.title, of: targets[0], when: .containing(.highlighted)))
        #expect(resolver.checkInvariants() == nil)
        resolver.removeValues(of: targets[1])
        #expect(resolver.checkInvariants() == nil)
    }

    @Test func aBrokenStructureIsReported() throws {
        let resolver = StateResolver(), target = Target()
        try resolver.setValue(1, for: \.count, of: target, when: .containing(.selected))
        try resolver.setValue(2, for: \.count, of: target, when: .containing(.highlighted))
        #expect(resolver.checkInvariants() == nil)

        // Two values of one version.
        let version = resolver.slab.version(1)
        let saved = resolver.slab.swapVersionForTesting(0, version)
        #expect(resolver.checkInvariants()?.hasPrefix("value slab:") == true)
        _ = resolver.slab.swapVersionForTesting(0, saved)
        #expect(resolver.checkInvariants() == nil)

        // A value freed while a rule holds it: the table and the slab disagree.
        resolver.slab.remove(1)
        #expect(resolver.checkInvariants() == "value handle 1: freed, or held by two rules")
        #expect(try resolver.slab.insert(nil, inline: 2) == 1)  // the freed handle, reused
        #expect(resolver.checkInvariants() == nil)
    }

    @Test func aBrokenRegistryIsReported() throws {
        let resolver = StateResolver(), target = Target()
        try resolver.setValue(1, for: \.count, of: target, when: .containing(.selected))
        let bound = try #require(resolver.targets.record(at: target))
        #expect(resolver.checkInvariants() == nil)

        // A target forgotten while the table still binds it.
        resolver.targets.remove(bound)
        #expect(resolver.checkInvariants() == "the table binds unregistered target \(bound.id)")

        // Its id freed twice.
        resolver.targets.remove(bound)
        #expect(resolver.checkInvariants()?.hasPrefix("target registry: free id \(bound.id)") == true)
    }
}
