import Foundation
import Testing
import StatefulEngine

/// The engine is not actor-bound: a resolver belongs to whoever owns it, on any thread.
@Suite("The engine off the main actor")
struct ConcurrencyTests {
    final class Badge { var color = "black" }

    /// Binds and applies on a resolver of its own; returns the colours seen.
    nonisolated static func resolveAlone(_ index: Int) throws -> [String] {
        let badge = Badge()
        let resolver = StateResolver()
        try resolver.setValue("blue \(index)", for: \.color, of: badge, when: .containing(.selected))
        try resolver.setValue("grey", for: \.color, of: badge, when: .containing(.disabled, priority: 2000))
        var seen: [String] = []
        for state: ControlState in [.selected, [.selected, .disabled], .normal] {
            try resolver.apply(state)
            seen.append(badge.color)
        }
        seen.append(resolver.value(for: \.color, of: badge, in: .selected) ?? "none")
        return seen
    }

    /// Eight resolvers on concurrent tasks bind one key path on one class: what the process
    /// knows of it, and its writer, they share (the key path catalog, under TSan in `make sanitize`).
    @Test func resolversOnConcurrentTasks() async throws {
        let results = try await withThrowingTaskGroup(of: (Int, [String]).self) { group in
            for index in 0..<8 { group.addTask { (index, try Self.resolveAlone(index)) } }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        for index in 0..<8 {
            #expect(results[index] == ["blue \(index)", "grey", "black", "blue \(index)"])
        }
    }

    @Test func allocatingStatesFromManyTasksGivesOneBitPerName() async throws {
        let states = try await withThrowingTaskGroup(of: ControlState.self) { group in
            for _ in 0..<16 { group.addTask { try ControlState.allocate(named: "com.example.concurrent") } }
            return try await group.reduce(into: Set<ControlState>()) { $0.insert($1) }
        }
        #expect(states.count == 1 && states.first!.isCustom)
    }

    /// Two threads, started together, each with a resolver of its own (binding, applying,
    /// removing, over many states), both allocating the same custom state from the process-wide
    /// allocator at once. `make sanitize` runs this under
    /// TSan: any data race between the two resolvers (Judy, the C table, the slab) or in the
    /// allocator is reported.
    @Test func twoResolversOnTwoThreadsAndTheAllocatorFromBoth() throws {
        final class Outcome: @unchecked Sendable {
            var colors: [[String]] = [[], []]
            var shared: [ControlState?] = [nil, nil]
            var errors: [String] = []
            let lock = NSLock()
        }
        let outcome = Outcome()
        let start = DispatchSemaphore(value: 0), done = DispatchGroup()
        for index in 0..<2 {
            done.enter()
            let thread = Thread {
                start.wait()
                do {
                    // The name the task test allocates: the test process has eight application bits.
                    let shared = try ControlState.allocate(named: "com.example.concurrent")
                    let badge = Badge(), resolver = StateResolver()
                    var seen: [String] = []
                    for round in 0..<2_000 {
                        try resolver.setValue(
                            "c\(round % 5)", for: \.color, of: badge,
                            when: .containing(ControlState(rawValue: UInt(round % 8) + 1)))
                        try resolver.apply(ControlState(rawValue: UInt(round % 64)))
                        if round % 7 == 0 { resolver.removeValues(for: \.color, of: badge) }
                        if round % 500 == 499 { seen.append(badge.color) }
                    }
                    resolver.removeAllValues()
                    seen.append(badge.color)
                    outcome.lock.withLock {
                        outcome.colors[index] = seen; outcome.shared[index] = shared
                    }
                } catch {
                    outcome.lock.withLock { outcome.errors.append("\(error)") }
                }
                done.leave()
            }
            thread.start()
        }
        start.signal()
        start.signal()
        done.wait()
        #expect(outcome.errors.isEmpty)
        // Both threads ran the same script on resolvers of their own: the same colours.
        #expect(outcome.colors[0] == outcome.colors[1] && outcome.colors[0].last == "black")
        #expect(outcome.shared[0] != nil && outcome.shared[0] == outcome.shared[1])
    }
}
