import CJudyFaultInjection
import Testing
@testable import StatefulEngine

/// A target that records every write to its properties.
final class Recorder {
    var title = "default" { didSet { writes.append("title=\(title)") } }
    var color: String? = "black" { didSet { writes.append("color=\(color ?? "nil")") } }
    var width = 1.0 { didSet { writes.append("width=\(width)") } }
    var writes: [String] = []
}

/// A target whose setter runs a closure.
final class Probe {
    let onSet: () -> Void
    var value = 0 { didSet { onSet() } }
    init(_ onSet: @escaping () -> Void) { self.onSet = onSet }
}

@Suite("StateResolver: the Swift façade")
struct StateResolverTests {
    @Test func theDefaultIsCapturedOnFirstBindAndAppliedWhenNothingMatches() throws {
        let resolver = StateResolver()
        let target = Recorder()
        target.title = "original"
        target.writes = []
        try resolver.setValue("on", for: \.title, of: target, when: .containing(.selected))
        #expect(target.writes.isEmpty)  // does not win in .normal: stored only
        #expect(try resolver.apply(.selected) == 1)
        #expect(target.title == "on")
        try resolver.apply(.normal)
        #expect(target.title == "original")
        #expect(resolver.value(for: \.title, of: target, in: .normal) == "original")
        #expect(resolver.value(for: \.title, of: target, in: [.selected, .focused]) == "on")
        #expect(resolver.value(for: \.width, of: target, in: .normal) == nil)  // not bound
    }

    /// Values of every alignment, and of an alignment below their size, for the defaults held
    /// by the binding records (copied from them as bytes by the direct access).
    final class Alignments {
        struct Pair: Equatable { var a: Int32, b: Int32 }
        var flag = true
        var half: Int16 = -2
        var pair = Pair(a: 1, b: 2)
        var word = 3
        var vector = SIMD4<Float>(1, 2, 3, 4)
        var text = "default"
    }

    @Test func theDefaultsOfEveryAlignmentAreWrittenBackFromTheBindings() throws {
        let resolver = StateResolver()
        let target = Alignments()
        try resolver.setValue(false, for: \.flag, of: target, when: .containing(.selected))
        try resolver.setValue(7, for: \.half, of: target, when: .containing(.selected))
        try resolver.setValue(.init(a: 8, b: 9), for: \.pair, of: target, when: .containing(.selected))
        try resolver.setValue(10, for: \.word, of: target, when: .containing(.selected))
        try resolver.setValue(.init(5, 6, 7, 8), for: \.vector, of: target, when: .containing(.selected))
        try resolver.setValue("on", for: \.text, of: target, when: .containing(.selected))
        for _ in 0..<2 {
            #expect(try resolver.apply(.selected) == 6)
            #expect(!target.flag && target.half == 7 && target.pair == .init(a: 8, b: 9) && target.word == 10)
            #expect(target.vector == .init(5, 6, 7, 8) && target.text == "on")
            #expect(try resolver.apply(.normal) == 6)
            #expect(target.flag && target.half == -2 && target.pair == .init(a: 1, b: 2) && target.word == 3)
            #expect(target.vector == .init(1, 2, 3, 4) && target.text == "default")
        }
        #expect(resolver.value(for: \.pair, of: target, in: .normal) == .init(a: 1, b: 2))
        #expect(resolver.explain(\.vector, of: target, in: .normal).defaultValue == .init(1, 2, 3, 4))
    }

    @Test func changedPropertiesAreWhatAnApplyWritesInItsOrder() throws {
        let resolver = StateResolver()
        let first = Recorder(), second = Recorder()
        try resolver.setValue("selected", for: \.title, of: first, when: .containing(.selected))
        try resolver.setValue(2.0, for: \.width, of: second, when: .containing(.selected))
        try resolver.setValue("focused", for: \.color, of: second, when: .containing(.focused))
        try resolver.setValue(3.0, for: \.width, of: first, when: .containing(.focused))
        let selecting = try resolver.changedProperties(from: .normal, to: .selected)
        #expect(
            selecting == [
                BoundProperty(target: first, keyPath: \Recorder.title),
                BoundProperty(target: second, keyPath: \Recorder.width),
            ])
        #expect(try resolver.changedProperties(from: .selected, to: .selected).isEmpty)
        // The same list as the apply's writes, before and after the apply.
        first.writes = []
        second.writes = []
        try resolver.apply([.selected, .focused])
        let both = try resolver.changedProperties(from: .normal, to: [.selected, .focused])
        // Targets in bind order, each one's key paths in the order the resolver first saw them.
        #expect(
            both == [
                BoundProperty(target: first, keyPath: \Recorder.title), BoundProperty(target: first, keyPath: \Recorder.width),
                BoundProperty(target: second, keyPath: \Recorder.width), BoundProperty(target: second, keyPath: \Recorder.color),
            ])
        #expect(first.writes == ["title=selected", "width=3.0"] && second.writes == ["width=2.0", "color=focused"])
    }

    @Test func changedPropertiesLeaveOutDeallocatedTargetsAndWorkFromASetter() throws {
        let resolver = StateResolver()
        let kept = Recorder()
        var asked: [BoundProperty] = []
        do {
            let gone = Recorder()
            try resolver.setValue("gone", for: \.title, of: gone, when: .containing(.selected))
        }
        try resolver.setValue("kept", for: \.title, of: kept, when: .containing(.selected))
        #expect(try resolver.changedProperties(from: .normal, to: .selected) == [BoundProperty(target: kept, keyPath: \Recorder.title)])
        // A setter asking for another diff while the apply reads its own: the apply goes on.
        let probe = Probe { asked = (try? resolver.changedProperties(from: .normal, to: .focused)) ?? [] }
        try resolver.setValue(1, for: \.value, of: probe, when: .containing(.selected))
        try resolver.setValue("kept, focused", for: \.color, of: kept, when: .containing(.focused))
        try resolver.apply([.selected, .focused])
        #expect(asked == [BoundProperty(target: kept, keyPath: \Recorder.color)])
        #expect(kept.title == "kept" && kept.color == "kept, focused" && probe.value == 1)
    }

    @Test func aNewRuleIsAppliedAtOnceOnlyIfItWins() throws {
        let resolver = StateResolver(state: .selected)
        let target = Recorder()
        try resolver.setValue("exact", for: \.title, of: target, when: .exactly(.selected))
        #expect(target.writes == ["title=exact"])
        try resolver.setValue("lower", for: \.title, of: target, when: .containing(.selected))
        #expect(target.writes == ["title=exact"])  // 999 < 1000: not applied
        try resolver.setValue("higher", for: \.title, of: target, when: .containing(.selected, priority: 2000))
        #expect(target.writes == ["title=exact", "title=higher"])
        try resolver.setValue("other state", for: \.title, of: target, when: .exactly(.focused, priority: 5000))
        #expect(target.writes.count == 2)
    }

    @Test func applyWritesOnlyTheValuesThatDifferInBindOrder() throws {
        let resolver = StateResolver()
        let first = Recorder(), second = Recorder()
        try resolver.setValue("sel", for: \.title, of: second, when: .containing(.selected))
        try resolver.setValue("sel", for: \.title, of: first, when: .containing(.selected))
        try resolver.setValue("red", for: \.color, of: first, when: .containing(.highlighted))
        try resolver.setValue(2.0, for: \.width, of: second, when: .containingAny([.selected, .highlighted]))
        #expect(try resolver.apply(.normal) == 0)  // unchanged state: nothing written
        #expect(try resolver.apply(.selected) == 3)
        #expect(second.writes == ["title=sel", "width=2.0"])
        #expect(first.writes == ["title=sel"])
        #expect(try resolver.apply([.selected, .highlighted]) == 1)  // only the colour changes
        #expect(first.writes == ["title=sel", "color=red"])
        #expect(try resolver.apply([.selected, .highlighted]) == 0)
        #expect(try resolver.apply(.highlighted) == 2)
        #expect(first.writes.last == "title=default" && second.writes.last == "title=default")
        #expect(second.width == 2.0)
    }

    @Test func settersRunInFirstBindOrder() throws {
        final class Shared { var log: [String] = [] }
        final class Node {
            let name: String, shared: Shared
            var value = 0 { didSet { shared.log.append("\(name).value") } }
            var other = 0 { didSet { shared.log.append("\(name).other") } }
            init(_ name: String, _ shared: Shared) { (self.name, self.shared) = (name, shared) }
        }
        let shared = Shared()
        let nodes = ["c", "a", "b"].map { Node($0, shared) }
        let resolver = StateResolver()
        try resolver.setValue(1, for: \.other, of: nodes[1], when: .containing(.selected))
        for node in nodes { try resolver.setValue(1, for: \.value, of: node, when: .containing(.selected)) }
        try resolver.setValue(1, for: \.other, of: nodes[0], when: .containing(.selected))
        // The resolver does not keep its targets alive: an optimised build ends `nodes`' life
        // at its last use.
        try withExtendedLifetime(nodes) {
            for _ in 0..<3 {
                shared.log = []
                try resolver.apply(.selected)
                // Targets in first-bind order; within one, key paths in the order this resolver first saw them.
                #expect(shared.log == ["a.other", "a.value", "c.other", "c.value", "b.value"])
                try resolver.apply(.normal)
            }
        }
    }

    @Test func tiesGoToTheValueSetMostRecently() throws {
        let resolver = StateResolver(state: [.selected, .focused])
        let target = Recorder()
        try resolver.setValue("any", for: \.title, of: target, when: .containingAny(.selected))
        try resolver.setValue("none", for: \.title, of: target, when: .containingNone(.disabled))
        #expect(target.title == "none")
        try resolver.setValue("any again", for: \.title, of: target, when: .containingAny(.selected))
        #expect(target.title == "any again")
        let explanation = resolver.explain(\Recorder.title, of: target)
        #expect(explanation.candidates.map(\.value) == ["any again", "none"])
        // A tie at priority 500, won by the rule set more recently.
        #expect(explanation.candidates.map(\.descriptor.priority) == [500, 500])
        #expect(explanation.candidates[0].sequence > explanation.candidates[1].sequence)
        #expect(explanation.winner?.descriptor == .containingAny(.selected))
    }

    @Test func optionalNilIsAValue() throws {
        let resolver = StateResolver()
        let target = Recorder()
        try resolver.setValue(nil, for: \.color, of: target, when: .containing(.selected))
        try resolver.apply(.selected)
        #expect(target.color == nil)
        #expect(target.writes == ["color=nil"])
        #expect(resolver.value(for: \.color, of: target, in: .selected) == .some(nil))
        try resolver.apply(.normal)
        #expect(target.color == "black")
    }

    @Test func removingTheWinnerAppliesTheNextOneAndNeverRecapturesTheDefault() throws {
        let resolver = StateResolver(state: .selected)
        let target = Recorder()
        try resolver.setValue("low", for: \.title, of: target, when: .containing(.selected))
        try resolver.setValue("high", for: \.title, of: target, when: .exactly(.selected))
        #expect(target.title == "high")
        #expect(resolver.removeValue(for: \.title, of: target, when: .exactly(.selected)))
        #expect(!resolver.removeValue(for: \.title, of: target, when: .exactly(.selected)))
        #expect(target.title == "low")
        // The default is still the one captured first, not the applied "low".
        #expect(resolver.value(for: \.title, of: target, in: .normal) == "default")
        #expect(resolver.removeValue(for: \.title, of: target, when: .containing(.selected)))
        #expect(target.title == "default")
        #expect(resolver.ruleCount == 0 && resolver.bindings.isEmpty)
    }

    @Test func removingBindingsWritesDefaultsBack() throws {
        let resolver = StateResolver(state: .selected)
        let a = Recorder(), b = Recorder()
        try resolver.setValue("a", for: \.title, of: a, when: .containing(.selected))
        try resolver.setValue("red", for: \.color, of: a, when: .containing(.selected))
        try resolver.setValue("b", for: \.title, of: b, when: .containing(.selected))
        try resolver.setValue(3.0, for: \.width, of: b, when: .containing(.focused))
        resolver.removeValues(for: \.title, of: a)
        #expect(a.title == "default" && a.color == "red")
        resolver.removeValues(of: a)
        #expect(a.color == "black")
        b.writes = []
        resolver.removeAllValues()
        #expect(b.writes == ["title=default"])  // width was at its default already
        #expect(resolver.ruleCount == 0)
        // Every record, id and value handle is let go of at once.
        #expect(resolver.bindings.isEmpty && resolver.targets.count == 0 && resolver.targets.nextID == 1)
        #expect(resolver.slab.capacity == 0)
        try resolver.apply(.focused)
        #expect(b.width == 1.0)
    }

    @Test func customPredicatesResolveAndExplainByName() throws {
        let resolver = StateResolver()
        let target = Recorder()
        try resolver.setValue(
            "busy", for: \.title, of: target,
            when: .custom("two or more", priority: 800) { $0.rawValue.nonzeroBitCount >= 2 })
        try resolver.apply([.selected, .focused])
        #expect(target.title == "busy")
        let explanation = resolver.explain(\Recorder.title, of: target)
        #expect(explanation.winner?.descriptor.name == "two or more")
        #expect(explanation.candidates.filter(\.matches).count == 1)
        try resolver.apply(.selected)
        #expect(target.title == "default")
        let unmatched = resolver.explain(\Recorder.title, of: target)
        #expect(unmatched.winner == nil && unmatched.defaultValue == "default" && unmatched.value == "default")
    }

    /// The explanation is typed by the property's value: it compares as a whole.
    @Test func explanationsAreTypedByTheValue() throws {
        let resolver = StateResolver()
        let target = Recorder()
        try resolver.setValue("sel", for: \.title, of: target, when: .containing(.selected))
        try resolver.setValue("grey", for: \.title, of: target, when: .containing(.disabled, priority: 2000))
        let explanation: StateExplanation<String> = resolver.explain(\Recorder.title, of: target, in: [.selected, .disabled])
        let selectedRule = explanation.candidates[1], disabledRule = explanation.candidates[0]
        #expect(
            explanation
                == StateExplanation(
                    keyPath: \Recorder.title, state: [.selected, .disabled],
                    candidates: [
                        .init(
                            descriptor: .containing(.disabled, priority: 2000), value: "grey", matches: true,
                            sequence: disabledRule.sequence),
                        .init(descriptor: .containing(.selected), value: "sel", matches: true, sequence: selectedRule.sequence),
                    ],
                    defaultValue: "default"))
        #expect(explanation.value == "grey")
        let nothing: StateExplanation<Double> = resolver.explain(\Recorder.width, of: target)
        #expect(nothing.candidates.isEmpty && nothing.value == nil)
    }

    @Test func explainListsEveryCandidate() throws {
        let resolver = StateResolver()
        let target = Recorder()
        try resolver.setValue("exact", for: \.title, of: target, when: .exactly(.selected))
        try resolver.setValue("contains", for: \.title, of: target, when: .containing(.selected))
        try resolver.setValue("any", for: \.title, of: target, when: .containingAny([.focused, .highlighted]))
        let explanation = resolver.explain(\Recorder.title, of: target, in: [.selected, .focused])
        #expect(explanation.candidates.map(\.matches) == [false, true, true])
        #expect(explanation.value == "contains")
        #expect(explanation.candidates.filter(\.matches).map(\.value) == ["contains", "any"])
        #expect(resolver.explain(\Recorder.width, of: target).candidates.isEmpty)
    }

    @Test func outOfMemoryThrowsAndChangesNothing() throws {
        let resolver = StateResolver(state: .selected)
        let target = Recorder()
        try resolver.setValue("kept", for: \.title, of: target, when: .containing(.selected))
        fault_injection_arm(0, true)
        #expect(throws: ResolverError.outOfMemory) {
            try resolver.setValue("lost", for: \.color, of: target, when: .containing(.selected))
        }
        fault_injection_disarm()
        #expect(target.color == "black")
        #expect(resolver.value(for: \.color, of: target, in: .selected) == nil)
        #expect(resolver.ruleCount == 1 && resolver.slab.count == 1)
    }

    @Test func applyWithoutMemoryForADiffStillWritesTheChanges() throws {
        let resolver = StateResolver()
        let targets = (0..<10).map { _ in Recorder() }
        for (i, target) in targets.enumerated() {
            try resolver.setValue("s\(i)", for: \.title, of: target, when: .containing(.selected))
        }
        fault_injection_arm(0, true)
        let writes = try resolver.apply(.selected)
        fault_injection_disarm()
        #expect(writes == 10)
        #expect(targets.map(\.title) == (0..<10).map { "s\($0)" })
    }

    @Test func aSetterThatRequestsAnotherStateDoesNotNest() throws {
        final class Feedback {
            let resolver = StateResolver()
            var log: [String] = []
            var flag = false {
                didSet {
                    log.append("flag=\(flag)")
                    // Feeds back: selecting turns focus on.
                    if flag { _ = try? resolver.apply([.selected, .focused]) }
                }
            }
            var label = "" { didSet { log.append("label=\(label)") } }
        }
        let owner = Feedback()
        try owner.resolver.setValue(true, for: \.flag, of: owner, when: .containing(.selected))
        try owner.resolver.setValue("focused", for: \.label, of: owner, when: .containing(.focused))
        try owner.resolver.apply(.selected)
        #expect(owner.log == ["flag=true", "label=focused"])
        #expect(owner.resolver.appliedState == [.selected, .focused])
    }

    @Test func aStateThatNeverSettlesIsStoppedAsACycle() throws {
        final class Oscillator {
            let resolver = StateResolver()
            var writes = 0
            var flag = false {
                didSet {
                    writes += 1
                    _ = try? resolver.apply(flag ? .normal : .selected)
                }
            }
        }
        let owner = Oscillator()
        try owner.resolver.setValue(true, for: \.flag, of: owner, when: .containing(.selected))
        #expect(throws: ResolverError.cycle) { try owner.resolver.apply(.selected) }
        #expect(owner.writes <= StateResolver.maximumRounds)
        #expect(try owner.resolver.apply(owner.resolver.appliedState) == 0)  // usable again
    }
}
