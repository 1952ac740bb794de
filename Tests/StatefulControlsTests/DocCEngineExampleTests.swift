// swift-format-ignore-file
// Not formatted: its code is StatefulEngine.md's code blocks, line for line (the test below checks
// each block against it), formatted as the article shows it. The other articles' blocks are in
// DocCExampleTests.swift.

import Testing

// The first block of StatefulEngine.md: the engine alone. (This target also imports
// StatefulControls elsewhere, so the example is not proven to need the engine alone here: it
// uses engine API only.)
import StatefulEngine

// MARK: StatefulEngine.md (the engine's catalog)

final class TableCell {
    var background = "white"
    var isSelected = false
    var isEnabled = true

    var state: ControlState {
        var state: ControlState = []
        if isSelected { state.insert(.selected) }
        if !isEnabled { state.insert(.disabled) }
        return state
    }
}

actor TableRenderer {
    private let cell = TableCell()
    private let resolver = StateResolver()

    init() throws(ResolverError) {
        try resolver.setValue("blue", for: \.background, of: cell, when: .containing(.selected))
        try resolver.setValue("grey", for: \.background, of: cell, when: .containing(.disabled, priority: 2000))
    }

    func render(selected: Bool, enabled: Bool = true) throws(ResolverError) -> String {
        cell.isSelected = selected
        cell.isEnabled = enabled
        try resolver.apply(cell.state)
        return cell.background
    }
}

// The resolver lives in an actor, not on the main actor.
@Suite("DocC examples: the engine")
struct DocCEngineExampleTests {
    @Test func engineBlocksAreHere() { expectEveryBlock(of: DocCArticle.engine, isIn: #filePath) }

    @Test func rendererOwnsItsResolver() async throws {
        let renderer = try TableRenderer()
        let selected = try await renderer.render(selected: true)                  // "blue"
        let disabled = try await renderer.render(selected: true, enabled: false)  // "grey": the higher priority wins
        let plain = try await renderer.render(selected: false)                    // "white": the default, captured on first bind
        #expect([selected, disabled, plain] == ["blue", "grey", "white"])
    }

    @Test func renderersRunInParallel() async throws {
        let colours = try await withThrowingTaskGroup(of: [String].self) { group in
            for _ in 0..<4 {
                group.addTask {
                    let renderer = try TableRenderer()
                    return [try await renderer.render(selected: true), try await renderer.render(selected: false, enabled: false)]
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(colours == Array(repeating: ["blue", "grey"], count: 4))
    }

    @Test func anExtendedState() throws {
        let archived = try ControlState.allocate(named: "com.example.cell.archived", in: .extendedApplication)
        #expect(ControlState.extendedApplication.contains(archived) && archived.description == "com.example.cell.archived")
    }
}
