import Testing
@testable import StatefulEngine

/// A target whose property is reached through the class that declares it and through a subclass.
class Swatch {
    var fill = "clear"
}

final class LabeledSwatch: Swatch {
    var label = "none"
}

/// The resolver's bound properties, listed, and explained without their static type (what an
/// inspector that shows every binding uses).
@Suite("StateResolver: bound properties listed and explained untyped")
struct BoundPropertiesTests {
    @Test func boundPropertiesAreListedInTheOrderAnApplyWritesThem() throws {
        let resolver = StateResolver()
        let first = Recorder(), second = Recorder()
        #expect(resolver.boundProperties.isEmpty)
        try resolver.setValue(2.0, for: \.width, of: second, when: .containing(.selected))
        try resolver.setValue("on", for: \.title, of: first, when: .containing(.selected))
        try resolver.setValue("off", for: \.title, of: first, when: .containing(.disabled))  // the same property: listed once
        try resolver.setValue("sel", for: \.title, of: second, when: .containing(.selected))
        let listed = resolver.boundProperties
        #expect(
            listed == [
                BoundProperty(target: second, keyPath: \Recorder.width), BoundProperty(target: second, keyPath: \Recorder.title),
                BoundProperty(target: first, keyPath: \Recorder.title),
            ])
        // The order an apply writes them: the diff from normal to a state changing all three.
        #expect(try resolver.changedProperties(from: .normal, to: .selected) == listed)
        resolver.removeValues(for: \Recorder.width, of: second)
        #expect(resolver.boundProperties.count == 2 && !resolver.boundProperties.contains { $0.keyPath == \Recorder.width })
    }

    @Test func aDeallocatedTargetIsLeftOut() throws {
        let resolver = StateResolver()
        let kept = Recorder()
        try resolver.setValue("on", for: \.title, of: kept, when: .containing(.selected))
        do {
            let gone = Recorder()
            try resolver.setValue("on", for: \.title, of: gone, when: .containing(.selected))
            #expect(resolver.boundProperties.count == 2)
        }
        #expect(resolver.boundProperties == [BoundProperty(target: kept, keyPath: \Recorder.title)])
    }

    @Test func anUntypedExplanationHasTheTypedOnesCandidatesWinnerAndDefault() throws {
        let resolver = StateResolver()
        let target = Recorder()
        try resolver.setValue("sel", for: \.title, of: target, when: .containing(.selected))
        try resolver.setValue("dis", for: \.title, of: target, when: .containing(.disabled, priority: 2000))
        try resolver.setValue("foc", for: \.title, of: target, when: .containingAny([.focused, .selected]))
        try resolver.apply([.selected])
        let property = try #require(resolver.boundProperties.first)
        for state in [nil, .normal, [.selected, .disabled], [.focused]] as [ControlState?] {
            let typed = resolver.explain(\Recorder.title, of: target, in: state)
            let untyped = try #require(resolver.explain(property, in: state))
            #expect(untyped.state == typed.state && untyped.keyPath == \Recorder.title)
            #expect(untyped.candidates.map(\.descriptor) == typed.candidates.map(\.descriptor))
            #expect(untyped.candidates.map(\.matches) == typed.candidates.map(\.matches))
            #expect(untyped.candidates.map { $0.value as? String } == typed.candidates.map(\.value))
            #expect(untyped.winner?.descriptor == typed.winner?.descriptor)
            #expect(untyped.value as? String == typed.value && untyped.defaultValue as? String == "default")
            // The same lines but the first, which names the key path: the one the resolver holds
            // (its accessor gives it back; see KeyPathAccessors) is equal to the caller's, and an
            // optimised build prints an observed property's key path with its accessor's address,
            // which differs from a copy of the literal to another.
            #expect(untyped.description.split(separator: "\n").dropFirst() == typed.description.split(separator: "\n").dropFirst())
        }
        // By default, the applied state.
        #expect(resolver.explain(property)?.winner?.descriptor == .containing(.selected))
    }

    @Test func anOptionalValueStaysOptionalInsideAny() throws {
        let resolver = StateResolver()
        let target = Recorder()
        try resolver.setValue(nil, for: \.color, of: target, when: .containing(.selected))
        let explanation = try #require(resolver.explain(BoundProperty(target: target, keyPath: \Recorder.color), in: .selected))
        let winner = try #require(explanation.winner)  // a bound nil is a value
        #expect(winner.value is String? && (winner.value as? String?) == .some(nil))
        #expect(explanation.defaultValue as? String? == .some("black"))
    }

    @Test func aPropertyNotBoundHereHasNoExplanation() throws {
        let resolver = StateResolver(), other = StateResolver()
        let target = Recorder()
        try resolver.setValue("on", for: \.title, of: target, when: .containing(.selected))
        #expect(resolver.explain(BoundProperty(target: target, keyPath: \Recorder.width)) == nil)  // another key path
        #expect(resolver.explain(BoundProperty(target: Recorder(), keyPath: \Recorder.title)) == nil)  // another object
        #expect(other.explain(BoundProperty(target: target, keyPath: \Recorder.title)) == nil)  // another resolver
        resolver.removeValues(of: target)
        #expect(resolver.explain(BoundProperty(target: target, keyPath: \Recorder.title)) == nil)  // removed
    }

    @Test func aPropertyIsFoundByEveryKeyPathThatBoundIt() throws {
        let resolver = StateResolver()
        let swatch = LabeledSwatch()
        try resolver.setValue("blue", for: \Swatch.fill, of: swatch, when: .containing(.selected))
        try resolver.setValue("grey", for: \LabeledSwatch.fill, of: swatch, when: .containing(.disabled))
        guard PropertyAccess.current == .direct else {
            // The portable access knows a property only by its key path: two key paths from two
            // roots are two bindings (README, "Where it runs"), each found by its own key path.
            #expect(
                resolver.boundProperties == [
                    BoundProperty(target: swatch, keyPath: \Swatch.fill), BoundProperty(target: swatch, keyPath: \LabeledSwatch.fill),
                ])
            for (keyPath, value) in [(\Swatch.fill, "clear"), (\LabeledSwatch.fill, "grey")] as [(AnyKeyPath, String)] {
                let explanation = try #require(resolver.explain(BoundProperty(target: swatch, keyPath: keyPath), in: [.disabled]))
                #expect(explanation.candidates.count == 1 && explanation.value as? String == value)
            }
            return
        }
        // One binding, named by the key path its first binding used; both key paths find it.
        #expect(resolver.boundProperties == [BoundProperty(target: swatch, keyPath: \Swatch.fill)])
        for keyPath in [\Swatch.fill, \LabeledSwatch.fill] as [AnyKeyPath] {
            let explanation = try #require(resolver.explain(BoundProperty(target: swatch, keyPath: keyPath), in: [.disabled]))
            #expect(explanation.candidates.count == 2 && explanation.value as? String == "grey")
        }
    }
}
