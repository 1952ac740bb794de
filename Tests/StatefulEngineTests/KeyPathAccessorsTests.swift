import Testing

@testable import StatefulEngine

/// The caller's setter (the key path argument is an autoclosure): a literal's is a plain
/// assignment the portable access writes with; an argument that gives another key path when
/// evaluated again never writes another property than the one bound.
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
        keyPath = \Subject.other  // the autoclosure sees the variable, not its value at the call
        try resolver.apply(.selected)
        #expect(subject.title == "selected" && subject.other == "untouched")
        try resolver.apply(.normal)
        #expect(subject.title == "none" && subject.other == "untouched")
        withExtendedLifetime(keyPath) {}
    }

    @Test func theDefaultIsReadFromTheBoundPropertyWhateverTheExpressionGivesNext() throws {
        let resolver = StateResolver(), subject = Subject()
        subject.title = "title's default"
        subject.other = "other's value"
        var evaluations = 0
        func keyPath() -> ReferenceWritableKeyPath<Subject, String> {
            evaluations += 1
            return evaluations == 1 ? \.title : \.other
        }
        try resolver.setValue("selected", for: keyPath(), of: subject, when: .containing(.selected))
        #expect(evaluations > 1, "evaluated again, to check the accessors")
        #expect(resolver.value(for: \.title, of: subject, in: .normal) == "title's default")
        try resolver.apply(.selected)
        try resolver.apply(.normal)
        #expect(subject.title == "title's default" && subject.other == "other's value")
    }

    @Test func aKeyPathMadeAnewAtEachEvaluationIsWrittenThroughTheKeyPath() throws {
        let resolver = StateResolver(), subject = Subject()
        var evaluations = 0
        func innerCount() -> ReferenceWritableKeyPath<Subject, Int> {
            evaluations += 1
            let count: ReferenceWritableKeyPath<Inner, Int> = \Inner.count
            return (\Subject.inner as KeyPath<Subject, Inner>).appending(path: count)  // a new object each time
        }
        try resolver.setValue(3, for: innerCount(), of: subject, when: .containing(.selected))
        let writer = try #require(resolver.binding(\Subject.inner.count, of: subject)?.writer)
        #expect(!(writer is SetterPropertyWriter<Subject, Int>))
        let evaluationsAfterBinding = evaluations
        try resolver.apply(.selected)
        try resolver.apply(.normal)
        try resolver.apply(.selected)
        #expect(subject.inner.count == 3)
        #expect(evaluations == evaluationsAfterBinding, "the argument is not evaluated again when its writer is the key path's")
    }
}

/// A key path bound through a local constant keeps nothing else alive: the argument is kept
/// with the resolver's writer, and a local constant is all it reads.
@Suite("StateResolver: the caller's setter keeps only what it reads")
@MainActor
struct KeyPathAccessorsLifetimeTests {
    final class Label { var text = "" }
    final class Owner {
        let keyPath = \Label.text
        func bind(_ resolver: StateResolver, _ label: Label) throws {
            let keyPath = keyPath  // a local constant, not `self.keyPath`
            try resolver.setValue("on", for: keyPath, of: label, when: .containing(.selected))
        }
    }

    @Test func aLocalConstantLeavesTheOwnerFree() throws {
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
