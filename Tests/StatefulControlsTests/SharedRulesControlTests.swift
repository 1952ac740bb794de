import Testing

@testable import StatefulControls
@testable import StatefulEngine

/// Controls that bind the same values share one rule table (see `RuleTable`), and each still
/// shows what its own rules say.
@MainActor @Suite("Control: rules shared by controls that bind the same values")
struct SharedRulesControlTests {
    static func bound(_ frame: Rect = Rect(x: 0, y: 0, width: 44, height: 44)) -> Control {
        let control = Control()
        control.setValue(true, for: \.isHidden, of: control, when: .containing(.disabled))
        control.setValue(frame, for: \.frame, of: control, when: .containing(.highlighted))
        return control
    }

    @Test func controlsThatBindTheSameValuesShareTheirRules() {
        let controls = (0..<3).map { _ in Self.bound() }
        let other = Self.bound(Rect(x: 1, y: 1, width: 1, height: 1))
        #expect(controls[1].resolver.rules === controls[0].resolver.rules)
        #expect(controls[2].resolver.rules === controls[0].resolver.rules)
        #expect(other.resolver.rules !== controls[0].resolver.rules)
        let initialFrame = Control().frame
        controls[0].isHighlighted = true
        controls[1].isEnabled = false
        #expect(controls[0].frame == Rect(x: 0, y: 0, width: 44, height: 44) && !controls[0].isHidden)
        #expect(controls[1].isHidden && controls[1].frame == initialFrame)
        #expect(!controls[2].isHidden && controls[2].frame == initialFrame)
        // One control's own value: the others keep theirs, and their table.
        let caption = Caption()
        controls[2].setValue("on", for: \.text, of: caption, when: .containing(.selected))
        controls[2].isSelected = true
        controls[0].isSelected = true
        #expect(caption.text == "on")
        #expect(controls[2].resolver.rules !== controls[0].resolver.rules)
        #expect(controls[1].resolver.rules === controls[0].resolver.rules)
    }

    @Test func aControlWithoutBindingsHoldsNoTableOfItsOwn() {
        #expect(Control().resolver.rules === RuleTable.empty)
    }
}
