import Testing

@testable import StatefulEngine

/// The caller's accessor (the key path argument is an autoclosure, evaluated once, when
/// binding): a literal's is a plain assignment the portable access writes with; any other key
/// path is written through. An expression that gives another key path at each evaluation is
/// tested in SoundnessTests.
@Suite("StateResolver: the caller's setter")
@MainActor
struct KeyPathAccessorsTests {
    final class Inner { var count = 0 }
    final class Subject {
        var title = "none"
        var other = "untouched"
        let inner = Inner()
    }

    @Test func aLiteralIsWrittenThroughTheCallersSetter() throws {
        let resolver = StateResolver(), subject = Subject()
        try resolver.setValue("selected", for: \.title, of: subject, when: .containing(.selected))
        let writer = try #require(resolver.binding(\Subject.title, of: subject)?.writer)
        // The portable access writes with the setter; the direct one at the property's offset.
        #expect((writer is SetterPropertyWriter<Subject, String>) == (PropertyAccess.current == .portable))
        try resolver.apply(.selected)
        #expect(subject.title == "selected")
        try resolver.apply(.normal)
        #expect(subject.title == "none")
    }

    @Test func aVariableChangedAfterBindingStillWritesTheBoundProperty() throws {
        let resolver = StateResolver(), subject = Subject()
        var keyPath = \Subject.title
        try resolver.setValue("selected", for: keyPath, of: subject, when: .containing(.selected))
        keyPath = \Subject.other  // the accessors hold what the variable gave when binding
        try resolver.apply(.selected)
        #expect(subject.title == "selected" && subject.other == "untouched")
        try resolver.apply(.normal)
        #expect(subject.title == "none" && subject.other == "untouched")
        withExtendedLifetime(keyPath) {}
    }

    @Test func theExpressionIsEvaluatedWhenBindingOnly() throws {
        let resolver = StateResolver(), subject = Subject()
        var evaluations = 0
        func title() -> ReferenceWritableKeyPath<Subject, String> {
            evaluations += 1
            return \.title  // a literal: the same object each time
        }
        try resolver.setValue("selected", for: title(), of: subject, when: .containing(.selected))
        let writer = try #require(resolver.binding(\Subject.title, of: subject)?.writer)
        #expect((writer is SetterPropertyWriter<Subject, String>) == (PropertyAccess.current == .portable))
        #expect(evaluations == 1)
        for state: ControlState in [.selected, .normal, .selected] { try resolver.apply(state) }
        #expect(subject.title == "selected")
        #expect(evaluations == 1, "a write does not evaluate the expression")
    }

    @Test func aKeyPathMadeAnewIsWrittenThroughIt() throws {
        let resolver = StateResolver(), subject = Subject()
        var evaluations = 0
        func innerCount() -> ReferenceWritableKeyPath<Subject, Int> {
            evaluations += 1
            let count: ReferenceWritableKeyPath<Inner, Int> = \Inner.count
            return (\Subject.inner as KeyPath<Subject, Inner>).appending(path: count)  // a new object each time
        }
        try resolver.setValue(3, for: innerCount(), of: subject, when: .containing(.selected))
        // A path through another object: the direct access writes it with the caller's accessor too.
        let writer = try #require(resolver.binding(\Subject.inner.count, of: subject)?.writer)
        #expect(writer is SetterPropertyWriter<Subject, Int>)
        try resolver.apply(.selected)
        try resolver.apply(.normal)
        try resolver.apply(.selected)
        #expect(subject.inner.count == 3)
        #expect(evaluations == 1)
    }
}

/// The key path argument keeps nothing alive: the accessors hold the key path it gave, not
/// what the expression read (here the owner, through `self.keyPath`).
@Suite("StateResolver: the caller's setter keeps only the key path")
@MainActor
struct KeyPathAccessorsLifetimeTests {
    final class Label { var text = "" }
    final class Owner {
        let keyPath = \Label.text
        func bind(_ resolver: StateResolver, _ label: Label) throws {
            try resolver.setValue("on", for: self.keyPath, of: label, when: .containing(.selected))
        }
    }

    @Test func aKeyPathReadFromItsOwnerLeavesTheOwnerFree() throws {
        let resolver = StateResolver(), label = Label()
        weak var released: Owner?
        do {
            let owner = Owner()
            released = owner
            try owner.bind(resolver, label)
        }
        #expect(released == nil)
        try resolver.apply(.selected)
        #expect(label.text == "on")
    }
}
