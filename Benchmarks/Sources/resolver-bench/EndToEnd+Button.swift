// The update-baseline scenario's button: the library's and the hand-written implementations.

import SeededRandom
import CBenchSupport
import StatefulControls

// MARK: - update-baseline: a button, 3 factors, 6 bound values

/// The title of the button: two of its six values.
final class BenchTitleLabel: View {
    var textColor = Color.blue
    var text = "Button"
}

/// The background of the button.
final class BenchBackgroundView: View {
    var backgroundColor = Color.clear
}

/// A badge on the button: its count, and `isHidden` (View's own).
final class BenchBadgeView: View {
    var count = 0
}

/// The hand-written button's title (the same class as BenchTitleLabel, no key path to it).
final class HandTitleLabel: View {
    var textColor = Color.blue
    var text = "Button"
}

/// The hand-written button's background.
final class HandBackgroundView: View {
    var backgroundColor = Color.clear
}

/// The hand-written button's badge.
final class HandBadgeView: View {
    var count = 0
}

/// The six values a button shows, read from its views (to compare implementations).
struct ButtonAppearance: Equatable, CustomStringConvertible {
    var textColor: Color
    var backgroundColor: Color
    var alpha: Double
    var badgeIsHidden: Bool
    var text: String
    var badgeCount: Int

    var description: String {
        "textColor=\(textColor) backgroundColor=\(backgroundColor) alpha=\(alpha) badge.isHidden=\(badgeIsHidden) text=\"\(text)\" badge.count=\(badgeCount)"
    }
}

/// What the update-baseline cycle drives: the three built-in factors, and what it shows.
@MainActor
protocol BenchButton: AnyObject {
    var isEnabled: Bool { get set }
    var isSelected: Bool { get set }
    var isHighlighted: Bool { get set }
    /// The six values, read from the button and its views.
    var appearance: ButtonAppearance { get }
}

/// The fixed 8-step cycle of factor changes: highlight on, off, select, highlight on, off,
/// disable, enable, deselect (normal, H, normal, S, SH, S, SD, S, normal). Every step changes
/// one factor; the cycle ends where it starts.
@MainActor @inline(__always)
func buttonCycleStep<Button: BenchButton>(_ button: Button, _ step: Int) {
    switch step & 7 {
    case 0: button.isHighlighted = true
    case 1: button.isHighlighted = false
    case 2: button.isSelected = true
    case 3: button.isHighlighted = true
    case 4: button.isHighlighted = false
    case 5: button.isEnabled = false
    case 6: button.isEnabled = true
    default: button.isSelected = false
    }
}

/// The button through the library: six values bound to states with `setValue(_:for:of:when:)`.
final class StatefulBenchButton: Control, BenchButton {
    var alpha = 1.0
    let titleLabel = BenchTitleLabel()
    let background = BenchBackgroundView()
    let badge = BenchBadgeView()

    init() {
        super.init(frame: Rect(x: 0, y: 0, width: 120, height: 44))
        addSubview(background)
        addSubview(titleLabel)
        addSubview(badge)

        setValue(Color.grey, for: \.textColor, of: titleLabel, when: .containing(.disabled, priority: 2000))
        setValue(Color.purple, for: \.textColor, of: titleLabel, when: .exactly([.selected, .highlighted], priority: 1500))
        setValue(Color.white, for: \.textColor, of: titleLabel, when: .containing(.highlighted, priority: 1000))
        setValue(Color.green, for: \.textColor, of: titleLabel, when: .containing(.selected, priority: 999))

        setValue(Color.clear, for: \.backgroundColor, of: background, when: .containing(.disabled, priority: 2000))
        setValue(Color.white, for: \.backgroundColor, of: background, when: .exactly(.normal, priority: 1200))
        setValue(Color.darkGrey, for: \.backgroundColor, of: background, when: .containing(.highlighted, priority: 1000))
        setValue(Color.blue, for: \.backgroundColor, of: background, when: .containing(.selected, priority: 900))

        setValue(0.4, for: \.alpha, when: .containing(.disabled, priority: 2000))
        setValue(0.8, for: \.alpha, when: .containing(.highlighted, priority: 1000))
        setValue(1.0, for: \.alpha, when: .notContaining(.highlighted, priority: 950))

        setValue(true, for: \.isHidden, of: badge, when: .containing(.disabled, priority: 2000))
        setValue(false, for: \.isHidden, of: badge, when: .containing(.selected, priority: 1100))
        setValue(true, for: \.isHidden, of: badge, when: .notContaining(.selected, priority: 900))

        setValue("Unavailable", for: \.text, of: titleLabel, when: .containing(.disabled, priority: 2000))
        setValue("Pressed", for: \.text, of: titleLabel, when: .exactly(.highlighted, priority: 1000))
        setValue("Selected", for: \.text, of: titleLabel, when: .containing(.selected, priority: 999))

        setValue(2, for: \.count, of: badge, when: .exactly([.selected, .highlighted], priority: 1500))
        setValue(1, for: \.count, of: badge, when: .containing(.selected, priority: 999))
        setValue(0, for: \.count, of: badge, when: .notContaining(.selected, priority: 900))
    }

    var appearance: ButtonAppearance {
        ButtonAppearance(
            textColor: titleLabel.textColor, backgroundColor: background.backgroundColor, alpha: alpha,
            badgeIsHidden: badge.isHidden, text: titleLabel.text, badgeCount: badge.count)
    }
}

/// The six values for the current factors, as a chain of `if`s per value (the rules above, by
/// priority, written out by hand).
@MainActor @inline(__always)
func handAppearance(isEnabled: Bool, isSelected: Bool, isHighlighted: Bool) -> ButtonAppearance {
    let textColor: Color
    if !isEnabled {
        textColor = .grey
    } else if isSelected && isHighlighted {
        textColor = .purple
    } else if isHighlighted {
        textColor = .white
    } else if isSelected {
        textColor = .green
    } else {
        textColor = .blue
    }

    let backgroundColor: Color
    if !isEnabled {
        backgroundColor = .clear
    } else if !isSelected && !isHighlighted {
        backgroundColor = .white
    } else if isHighlighted {
        backgroundColor = .darkGrey
    } else if isSelected {
        backgroundColor = .blue
    } else {
        backgroundColor = .clear
    }

    let alpha: Double
    if !isEnabled { alpha = 0.4 } else if isHighlighted { alpha = 0.8 } else { alpha = 1.0 }

    let badgeIsHidden: Bool
    if !isEnabled { badgeIsHidden = true } else if isSelected { badgeIsHidden = false } else { badgeIsHidden = true }

    let text: String
    if !isEnabled {
        text = "Unavailable"
    } else if isHighlighted && !isSelected {
        text = "Pressed"
    } else if isSelected {
        text = "Selected"
    } else {
        text = "Button"
    }

    let badgeCount: Int
    if isEnabled && isSelected && isHighlighted { badgeCount = 2 } else if isSelected { badgeCount = 1 } else { badgeCount = 0 }

    return ButtonAppearance(
        textColor: textColor, backgroundColor: backgroundColor, alpha: alpha,
        badgeIsHidden: badgeIsHidden, text: text, badgeCount: badgeCount)
}

/// How a hand-written button writes: only the values that changed, or all six every time.
protocol HandWrites { static var changedOnly: Bool { get } }
enum ChangedOnly: HandWrites { static var changedOnly: Bool { true } }
enum AlwaysWrites: HandWrites { static var changedOnly: Bool { false } }

/// The button by hand: `didSet { update() }` on each factor; `update()` writes the values that
/// changed (compares before writing), or all six (`AlwaysWrites`). Generic so that the two
/// variants share their code; each is specialised, `Writes.changedOnly` a constant.
final class HandBenchButton<Writes: HandWrites>: View, BenchButton {
    var isEnabled = true { didSet { update() } }
    var isSelected = false { didSet { update() } }
    var isHighlighted = false { didSet { update() } }
    var alpha = 1.0
    let titleLabel = HandTitleLabel()
    let background = HandBackgroundView()
    let badge = HandBadgeView()

    init() {
        super.init(frame: Rect(x: 0, y: 0, width: 120, height: 44))
        addSubview(background)
        addSubview(titleLabel)
        addSubview(badge)
        update()
    }

    func update() {
        let new = handAppearance(isEnabled: isEnabled, isSelected: isSelected, isHighlighted: isHighlighted)
        let all = !Writes.changedOnly
        if all || titleLabel.textColor != new.textColor { titleLabel.textColor = new.textColor }
        if all || background.backgroundColor != new.backgroundColor { background.backgroundColor = new.backgroundColor }
        if all || alpha != new.alpha { alpha = new.alpha }
        if all || badge.isHidden != new.badgeIsHidden { badge.isHidden = new.badgeIsHidden }
        if all || titleLabel.text != new.text { titleLabel.text = new.text }
        if all || badge.count != new.badgeCount { badge.count = new.badgeCount }
    }

    var appearance: ButtonAppearance {
        ButtonAppearance(
            textColor: titleLabel.textColor, backgroundColor: background.backgroundColor, alpha: alpha,
            badgeIsHidden: badge.isHidden, text: titleLabel.text, badgeCount: badge.count)
    }
}

/// The three buttons, checked to agree after every step of two cycles (the Control's state
/// pairs are all diffed once by then). Stops the program if they do not.
@MainActor
func makeUpdateBaselineButtons(verify: Bool)
    -> (StatefulBenchButton, HandBenchButton<ChangedOnly>, HandBenchButton<AlwaysWrites>)
{
    let control = StatefulBenchButton(), hand = HandBenchButton<ChangedOnly>(), always = HandBenchButton<AlwaysWrites>()
    func check(_ step: String) {
        guard verify else { return }
        let expected = hand.appearance
        guard control.appearance == expected, always.appearance == expected else {
            fatalError(
                """
                update-baseline: the implementations disagree \(step):
                  Control:                        \(control.appearance)
                  hand-written (changed only):    \(expected)
                  hand-written (always writes):   \(always.appearance)
                """)
        }
    }
    check("after init")
    for step in 0..<16 {
        buttonCycleStep(control, step)
        buttonCycleStep(hand, step)
        buttonCycleStep(always, step)
        check("after step \(step & 7) of the cycle (state \(control.state))")
    }
    return (control, hand, always)
}
