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
}
