// What safe Swift code cannot do through a resolver, in either property access (the suite runs
// in both: `make test`, then `make portable`; and under ASan and TSan in `make sanitize`): write
// a property under an access Swift would refuse, write a target after its deinit began, or
// write another property than the one bound.

import Dispatch
import Testing

@testable import StatefulEngine

@Suite("Sound by default")
struct SoundnessTests {
    final class Model {
        var count = 0
        var items = [3, 1, 2]
        var text = "abc"
        var frame = (x: 0, y: 0)
        var a = 0, b = 0, c = 0
    }

    /// Binds `value` to `keyPath` of `model` under `.selected`, then runs `body` with a function
    /// that applies `.selected` or `.normal` by turns.
    static func whileApplying<Value>(
        _ value: Value, to keyPath: ReferenceWritableKeyPath<Model, Value>, of model: Model, _ body: (() -> Void) -> Void
    ) throws {
        let resolver = StateResolver()
        try resolver.setValue(value, for: keyPath, of: model, when: .containing(.selected))
        var selected = false
        body {
            selected.toggle()
            _ = try? resolver.apply(selected ? .selected : .normal)
        }
    }

    /// Holds a modify access to `value` while `body` runs: not inlined, and writing after `body`,
    /// so that the optimiser keeps the access around the call.
    @inline(never)
    static func modifying<Value>(_ value: inout Value, _ body: () -> Void) {
        body()
        withUnsafeMutablePointer(to: &value) { _ in }
    }

    /// Expects the child process of an exit test to have stopped with Swift's exclusivity message.
    static func expectSimultaneousAccess(_ result: ExitTest.Result?) {
        let standardError = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(standardError.contains("Simultaneous accesses"), "\(standardError)")
    }

    // MARK: Overlapping accesses stop the program, as Swift stops them

    @Test func aSortWhoseComparatorChangesTheState() async {
        Self.expectSimultaneousAccess(
            await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let model = Model()
                try Self.whileApplying([9, 9, 9], to: \.items, of: model) { apply in
                    model.items.sort { first, second in
                        apply()
                        return first < second
                    }
                }
            })
    }

    @Test func aStringBorrowedWhileTheStateChanges() async {
        Self.expectSimultaneousAccess(
            await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let model = Model()
                try Self.whileApplying("bound", to: \.text, of: model) { apply in
                    model.text.withUTF8 { _ in apply() }
                }
            })
    }

    @Test func aWordInAnInoutAccess() async {
        Self.expectSimultaneousAccess(
            await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let model = Model()
                try Self.whileApplying(1, to: \.count, of: model) { apply in Self.modifying(&model.count, apply) }
            })
    }

    /// A field of a struct stored in the target: Swift's access is to the whole stored property.
    @Test func aFieldOfAStructInAnInoutAccess() async {
        Self.expectSimultaneousAccess(
            await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let model = Model()
                try Self.whileApplying(5, to: \.frame.x, of: model) { apply in Self.modifying(&model.frame, apply) }
            })
    }

    /// A value bound while it wins is written at once: inside an access to its property, that
    /// write stops the program too.
    @Test func aBindInsideAnAccessOfItsProperty() async {
        Self.expectSimultaneousAccess(
            await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let model = Model(), resolver = StateResolver()
                Self.modifying(&model.count) { _ = try? resolver.setValue(1, for: \.count, of: model, when: .containing([])) }
            })
    }

    /// The same writes outside any access are written, and a read access of another property
    /// does not stop them.
    @Test func writesOutsideAnAccessAreWritten() throws {
        let model = Model()
        try Self.whileApplying([9], to: \.items, of: model) { apply in
            model.text.withUTF8 { _ in apply() }
            #expect(model.items == [9])
            apply()
            #expect(model.items == [3, 1, 2])
        }
    }

    // MARK: The key path argument

    /// An expression that gives another key path each time it is evaluated: evaluated once, and
    /// the property it gave is the one bound and the one written.
    @Test func theKeyPathExpressionIsEvaluatedOnce() throws {
        let model = Model()
        let resolver = StateResolver()
        let paths: [ReferenceWritableKeyPath<Model, Int>] = [\.a, \.b, \.c]
        var evaluations = 0
        func next() -> ReferenceWritableKeyPath<Model, Int> {
            defer { evaluations += 1 }
            return paths[evaluations % paths.count]
        }
        try resolver.setValue(7, for: next(), of: model, when: .containing(.selected))
        #expect(evaluations == 1)
        try resolver.setValue(8, for: next(), of: model, when: .containing(.selected))
        #expect(evaluations == 2)
        try resolver.apply(.selected)
        #expect((model.a, model.b, model.c) == (7, 8, 0))
        #expect(resolver.value(for: \.a, of: model, in: .selected) == 7)
        #expect(resolver.value(for: \.b, of: model, in: .selected) == 8)
        #expect(resolver.value(for: \.c, of: model, in: .selected) == nil)
        try resolver.apply(.normal)
        #expect((model.a, model.b, model.c) == (0, 0, 0))
    }

    // MARK: A target released on another thread

    /// A value whose instances are counted: one written after its target's deinit began would
    /// never be released.
    final class Token: @unchecked Sendable {
        static let alive = Locked(0)
        init() { Self.alive.withLock { $0 += 1 } }
        deinit { Self.alive.withLock { $0 -= 1 } }
    }

    final class Target: @unchecked Sendable {
        var token = Token()
        var number = 0
    }

    /// Each target's last reference goes on another thread while this one applies: no write
    /// after its deinit began (the tokens balance), no use after free (ASan), no race (TSan).
    @Test func targetsReleasedOnAnotherThreadWhileApplying() throws {
        let before = Token.alive.withLock { $0 }
        do {
            let resolver = StateResolver()
            let releases = DispatchGroup()
            for round in 0..<300 {
                let handoff = Locked<Target?>(nil)
                do {
                    let target = Target()
                    try resolver.setValue(Token(), for: \.token, of: target, when: .containing(.selected))
                    try resolver.setValue(round, for: \.number, of: target, when: .containing(.selected))
                    handoff.withLock { $0 = target }
                }
                DispatchQueue.global().async(group: releases) { handoff.withLock { $0 = nil } }
                for _ in 0..<20 {
                    try resolver.apply(.selected)
                    try resolver.apply(.normal)
                }
            }
            releases.wait()
            try resolver.apply(.selected)  // writes nothing: every target is gone
            #expect(resolver.appliedState == .selected)
        }
        #expect(Token.alive.withLock { $0 } == before)
    }
}
