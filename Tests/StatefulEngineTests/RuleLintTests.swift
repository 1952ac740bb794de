import CJudyFaultInjection
import Testing
@testable import StatefulEngine

/// A target for the lint tests.
final class LintedSwatch {
    var fill = "clear"
    var border = "black"
    var shape = Shape(corners: 0)
}

/// A value type that is not `Equatable`: lint compares its values by rule only.
struct Shape {
    var corners: Int
}

@Suite("StateResolver: rule lint")
struct RuleLintTests {
    /// The four combinations of selected and disabled, in ascending order.
    let states: [ControlState] = [[], .disabled, .selected, [.selected, .disabled]]

    func diagnostic(
        _ problem: RuleDiagnostic.Problem, _ swatch: LintedSwatch, _ keyPath: String,
        _ descriptor: StateDescriptor?, _ value: String
    ) -> RuleDiagnostic {
        RuleDiagnostic(
            problem: problem, target: "LintedSwatch", targetIdentifier: ObjectIdentifier(swatch),
            keyPath: keyPath, descriptor: descriptor, value: value)
    }

    @Test func aRuleBeatenByAHigherPriorityWhereverItMatchesIsShadowed() throws {
        let resolver = StateResolver()
        let swatch = LintedSwatch()
        try resolver.setValue("blue", for: \.fill, of: swatch, when: .containing(.selected))
        try resolver.setValue("grey", for: \.fill, of: swatch, when: .containingAny([.selected, .disabled], priority: 2000))
        let diagnostics = try resolver.lintRules(reachableStates: states)
        let hiding = RuleDiagnostic.Shadowing(
            descriptor: .containingAny([.selected, .disabled], priority: 2000),
            value: "grey", states: [.selected, [.selected, .disabled]])
        #expect(diagnostics == [diagnostic(.shadowed(by: [hiding]), swatch, "\\LintedSwatch.fill", .containing(.selected), "blue")])
        #expect(
            diagnostics[0].description
                == "\\LintedSwatch.fill of LintedSwatch: containing(selected) @999 -> blue never wins: where it matches, containingAny(disabled | selected) @2000 -> grey wins in [selected], [disabled | selected]"
        )
    }

    @Test func aRuleBeatenByAnEqualPrioritySetLaterIsShadowed() throws {
        let resolver = StateResolver()
        let swatch = LintedSwatch()
        try resolver.setValue("blue", for: \.fill, of: swatch, when: .containing(.selected))
        try resolver.setValue("green", for: \.fill, of: swatch, when: .containingAny(.selected, priority: 999))
        try resolver.setValue("grey", for: \.fill, of: swatch, when: .containing(.disabled, priority: 2000))
        let diagnostics = try resolver.lintRules(reachableStates: states)
        // In [selected] the later rule of equal priority wins, in [selected | disabled] grey.
        let hiding = [
            RuleDiagnostic.Shadowing(descriptor: .containing(.disabled, priority: 2000), value: "grey", states: [[.selected, .disabled]]),
            RuleDiagnostic.Shadowing(descriptor: .containingAny(.selected, priority: 999), value: "green", states: [.selected]),
        ]
        #expect(diagnostics == [diagnostic(.shadowed(by: hiding), swatch, "\\LintedSwatch.fill", .containing(.selected), "blue")])
        #expect(
            diagnostics[0].description.hasSuffix(
                "containingAny(selected) @999 -> green wins (tied at priority 999 and set later) in [selected]"))
    }

    @Test func rulesThatMatchNoReachableStateNeverMatch() throws {
        let resolver = StateResolver()
        let swatch = LintedSwatch()
        try resolver.setValue("red", for: \.fill, of: swatch, when: .containingAny([]))
        try resolver.setValue("pink", for: \.fill, of: swatch, when: .containing(.focused))  // no state has it
        try resolver.setValue("teal", for: \.fill, of: swatch, when: .custom("never", priority: 1) { _ in false })
        try resolver.setValue("blue", for: \.fill, of: swatch, when: .containing(.selected))
        let diagnostics = try resolver.lintRules(reachableStates: states)
        #expect(
            diagnostics == [
                diagnostic(.neverMatches, swatch, "\\LintedSwatch.fill", .containing(.focused), "pink"),
                diagnostic(.neverMatches, swatch, "\\LintedSwatch.fill", .containingAny([]), "red"),
                diagnostic(.neverMatches, swatch, "\\LintedSwatch.fill", .custom("never", priority: 1) { _ in false }, "teal"),
            ])
        #expect(
            diagnostics[1].description
                == "\\LintedSwatch.fill of LintedSwatch: containingAny(normal) @500 -> red matches no reachable state")
    }

    @Test func aBindingWhoseWinnersAllEqualItsDefaultIsAlwaysDefault() throws {
        let resolver = StateResolver()
        let swatch = LintedSwatch()
        try resolver.setValue("black", for: \.border, of: swatch, when: .containing(.selected))
        try resolver.setValue("black", for: \.border, of: swatch, when: .containing(.disabled, priority: 2000))
        // A binding none of whose rules ever wins resolves to its default too, whatever its type.
        try resolver.setValue(Shape(corners: 4), for: \.shape, of: swatch, when: .containing(.focused))
        let diagnostics = try resolver.lintRules(reachableStates: states)
        #expect(
            diagnostics == [
                diagnostic(.alwaysDefault, swatch, "\\LintedSwatch.border", nil, "black"),
                diagnostic(.neverMatches, swatch, "\\LintedSwatch.shape", .containing(.focused), "Shape(corners: 4)"),
                diagnostic(.alwaysDefault, swatch, "\\LintedSwatch.shape", nil, "Shape(corners: 0)"),
            ])
        #expect(
            diagnostics[0].description
                == "\\LintedSwatch.border of LintedSwatch: every reachable state resolves to the default black: its rules change nothing")
    }

    @Test func valuesThatAreNotEquatableAreNotCompared() throws {
        let resolver = StateResolver()
        let swatch = LintedSwatch()
        // Equal to the default, and to each other, but Shape is not Equatable: nothing to report.
        try resolver.setValue(Shape(corners: 0), for: \.shape, of: swatch, when: .containing(.selected))
        try resolver.setValue(Shape(corners: 0), for: \.shape, of: swatch, when: .containingNone(.selected))
        #expect(try resolver.lintRules(reachableStates: states) == [])
    }

    @Test func aBindingWhoseWinnerNeverChangesIsReported() throws {
        let resolver = StateResolver()
        let swatch = LintedSwatch()
        // One rule wins everywhere: reported whatever the type.
        try resolver.setValue(Shape(corners: 3), for: \.shape, of: swatch, when: .containing([]))
        // Two rules whose equal values cover every state.
        try resolver.setValue("red", for: \.fill, of: swatch, when: .containing(.selected))
        try resolver.setValue("red", for: \.fill, of: swatch, when: .containingNone(.selected))
        // Rules whose values equal the default where they win, and the default elsewhere: no change either.
        try resolver.setValue("black", for: \.border, of: swatch, when: .containing(.disabled))
        let diagnostics = try resolver.lintRules(reachableStates: states)
        #expect(
            diagnostics == [
                diagnostic(.neverChanges, swatch, "\\LintedSwatch.shape", nil, "Shape(corners: 3)"),
                diagnostic(.neverChanges, swatch, "\\LintedSwatch.fill", nil, "red"),
                diagnostic(.alwaysDefault, swatch, "\\LintedSwatch.border", nil, "black"),
            ])
        #expect(
            diagnostics[1].description
                == "\\LintedSwatch.fill of LintedSwatch: every reachable state resolves to red: the binding never changes the value")
    }

    @Test func wellFormedRulesReportNothing() throws {
        let resolver = StateResolver()
        let swatch = LintedSwatch()
        try resolver.setValue("blue", for: \.fill, of: swatch, when: .containing(.selected))
        try resolver.setValue("grey", for: \.fill, of: swatch, when: .containing(.disabled, priority: 2000))
        try resolver.setValue("red", for: \.border, of: swatch, when: .notContaining(.selected))
        #expect(try resolver.lintRules(reachableStates: states) == [])
        #expect(try resolver.lintRules(reachableStates: []) == [])
    }

    @Test func lintWritesNothingAndChangesNoRule() throws {
        let resolver = StateResolver()
        let swatch = LintedSwatch()
        try resolver.setValue("blue", for: \.fill, of: swatch, when: .containing(.selected))
        try resolver.setValue("grey", for: \.fill, of: swatch, when: .containingAny([.selected, .disabled], priority: 2000))
        try resolver.apply(.selected)
        swatch.fill = "painted"  // a lint that wrote would overwrite it
        _ = try resolver.lintRules(reachableStates: states)
        #expect(swatch.fill == "painted")
        #expect(resolver.ruleCount == 2 && resolver.appliedState == .selected)
        #expect(resolver.value(for: \.fill, of: swatch, in: .disabled) == "grey")
        #expect(resolver.value(for: \.fill, of: swatch, in: .normal) == "clear")
    }

    @Test func theStatesOfAShadowingAreListedInTheOrderGivenPastSixtyFourStates() throws {
        let resolver = StateResolver()
        let swatch = LintedSwatch()
        try resolver.setValue("blue", for: \.fill, of: swatch, when: .containing(.selected))
        try resolver.setValue("grey", for: \.fill, of: swatch, when: .containing(.selected, priority: 2000))
        // 128 states of seven bits, given in descending order.
        let many = (0..<128).reversed().map { ControlState(rawValue: UInt($0)) }
        let diagnostics = try resolver.lintRules(reachableStates: many)
        let expected = many.filter { $0.contains(.selected) }
        #expect(expected.count == 64)
        #expect(
            diagnostics == [
                diagnostic(
                    .shadowed(by: [.init(descriptor: .containing(.selected, priority: 2000), value: "grey", states: expected)]),
                    swatch, "\\LintedSwatch.fill", .containing(.selected), "blue")
            ])
        #expect(
            diagnostics[0].description.hasSuffix(
                "wins in [highlighted | disabled | selected | focused | 0x10 | 0x20 | 0x40], [disabled | selected | focused | 0x10 | 0x20 | 0x40], [highlighted | selected | focused | 0x10 | 0x20 | 0x40] and 61 more states"
            ))
    }

    @Test func bindingsOfDeallocatedTargetsAreSkipped() throws {
        let resolver = StateResolver()
        let kept = LintedSwatch()
        try resolver.setValue("red", for: \.fill, of: kept, when: .containingAny([]))
        do {
            let gone = LintedSwatch()
            try resolver.setValue("red", for: \.fill, of: gone, when: .containingAny([]))
        }
        let diagnostics = try resolver.lintRules(reachableStates: states)
        #expect(diagnostics.map(\.targetIdentifier) == [ObjectIdentifier(kept), ObjectIdentifier(kept)])
        #expect(diagnostics.map(\.problem) == [.neverMatches, .alwaysDefault])
    }

    @Test func customPredicatesRunAndMayNotCallBack() throws {
        let resolver = StateResolver()
        let swatch = LintedSwatch()
        try resolver.setValue("odd", for: \.fill, of: swatch, when: .custom("odd", priority: 900) { $0.rawValue & 1 == 1 })
        try resolver.setValue("any", for: \.fill, of: swatch, when: .custom("any", priority: 800) { _ in true })
        try resolver.setValue("hidden", for: \.fill, of: swatch, when: .custom("hidden", priority: 700) { $0.contains(.highlighted) })
        let diagnostics = try resolver.lintRules(reachableStates: [[], .highlighted, .selected])
        let hiding = RuleDiagnostic.Shadowing(descriptor: .custom("odd", priority: 900) { _ in true }, value: "odd", states: [.highlighted])
        #expect(
            diagnostics == [
                diagnostic(
                    .shadowed(by: [hiding]), swatch, "\\LintedSwatch.fill",
                    .custom("hidden", priority: 700) { _ in true }, "hidden")
            ])
        #expect(diagnostics[0].descriptor?.name == "hidden")
    }

    @Test func aReportThatCannotBeAllocatedThrowsAndChangesNothing() throws {
        let resolver = StateResolver()
        let swatch = LintedSwatch()
        try resolver.setValue("red", for: \.fill, of: swatch, when: .containingAny([]))
        fault_injection_arm(0, true)
        let result = Result { () throws(ResolverError) in try resolver.lintRules(reachableStates: states) }
        fault_injection_disarm()
        #expect(throws: ResolverError.outOfMemory) { try result.get() }
        #expect(resolver.ruleCount == 1)
        #expect(try resolver.lintRules(reachableStates: states).count == 2)
    }
}
