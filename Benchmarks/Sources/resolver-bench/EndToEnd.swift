import SeededRandom
import CBenchSupport
import StatefulControls

// What a user pays end to end through the public `Control` API, next to the same behaviour
// written by hand: factors with `didSet { update() }` and a chain of `if`s.
//
// Every Control below is driven through its public factors only; every hand-written class
// holds the same subviews and properties and computes the same values. Each scenario checks
// once, before it measures, that the implementations agree after every step.
//
// The hand-written implementations have target classes of their own (Hand…), identical to
// the Control's: forming a key path to a class's stored property (as every setValue does)
// makes the compiler keep dynamic exclusivity checks (swift_beginAccess) on every access to
// that property in the module, which would charge the hand-written code for the library's
// key paths.

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
        ButtonAppearance(textColor: titleLabel.textColor, backgroundColor: background.backgroundColor, alpha: alpha,
                         badgeIsHidden: badge.isHidden, text: titleLabel.text, badgeCount: badge.count)
    }
}

/// The six values for the current factors, as a chain of `if`s per value (the rules above, by
/// priority, written out by hand).
@MainActor @inline(__always)
func handAppearance(isEnabled: Bool, isSelected: Bool, isHighlighted: Bool) -> ButtonAppearance {
    let textColor: Color
    if !isEnabled { textColor = .grey }
    else if isSelected && isHighlighted { textColor = .purple }
    else if isHighlighted { textColor = .white }
    else if isSelected { textColor = .green }
    else { textColor = .blue }

    let backgroundColor: Color
    if !isEnabled { backgroundColor = .clear }
    else if !isSelected && !isHighlighted { backgroundColor = .white }
    else if isHighlighted { backgroundColor = .darkGrey }
    else if isSelected { backgroundColor = .blue }
    else { backgroundColor = .clear }

    let alpha: Double
    if !isEnabled { alpha = 0.4 }
    else if isHighlighted { alpha = 0.8 }
    else { alpha = 1.0 }

    let badgeIsHidden: Bool
    if !isEnabled { badgeIsHidden = true }
    else if isSelected { badgeIsHidden = false }
    else { badgeIsHidden = true }

    let text: String
    if !isEnabled { text = "Unavailable" }
    else if isHighlighted && !isSelected { text = "Pressed" }
    else if isSelected { text = "Selected" }
    else { text = "Button" }

    let badgeCount: Int
    if isEnabled && isSelected && isHighlighted { badgeCount = 2 }
    else if isSelected { badgeCount = 1 }
    else { badgeCount = 0 }

    return ButtonAppearance(textColor: textColor, backgroundColor: backgroundColor, alpha: alpha,
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
        ButtonAppearance(textColor: titleLabel.textColor, backgroundColor: background.backgroundColor, alpha: alpha,
                         badgeIsHidden: badge.isHidden, text: titleLabel.text, badgeCount: badge.count)
    }
}

/// The three buttons, checked to agree after every step of two cycles (the Control's state
/// pairs are all diffed once by then). Stops the program if they do not.
@MainActor
func makeUpdateBaselineButtons(verify: Bool)
    -> (StatefulBenchButton, HandBenchButton<ChangedOnly>, HandBenchButton<AlwaysWrites>) {
    let control = StatefulBenchButton(), hand = HandBenchButton<ChangedOnly>(), always = HandBenchButton<AlwaysWrites>()
    func check(_ step: String) {
        guard verify else { return }
        let expected = hand.appearance
        guard control.appearance == expected, always.appearance == expected else {
            fatalError("""
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

// MARK: - form: 100 fields, a custom `valid` state enabling each field's button

/// The custom state of the form scenario.
func benchValidState() -> ControlState { BenchStates.all[2] }

/// What the form scenario flips: the field's five factors, and the button it enables.
@MainActor
protocol BenchFormField: AnyObject {
    var isEnabled: Bool { get set }
    var isSelected: Bool { get set }
    var isHighlighted: Bool { get set }
    var isFocused: Bool { get set }
    var isValid: Bool { get set }
    var buttonIsEnabled: Bool { get }
}

/// A field through the library: `valid` pushed by `isValid` (registered by its storage), and the button's isEnabled
/// bound to `.containing(valid)` (the button is a Control, disabled by default).
final class StatefulFormField: Control, BenchFormField {
    @StateFactor var isValid = false
    let button = Control()

    init(valid: ControlState) {
        super.init(frame: .zero)
        button.isEnabled = false
        register(valid, for: \._isValid)
        setValue(true, for: \.isEnabled, of: button, when: .containing(valid))
    }

    var buttonIsEnabled: Bool { button.isEnabled }
}

/// The hand-written field's button.
final class HandFormButton: View {
    var isEnabled = false
}

/// A field by hand: `didSet` on `isValid` writes the button's `isEnabled`; the other factors
/// affect nothing here.
final class HandFormField: View, BenchFormField {
    var isEnabled = true
    var isSelected = false
    var isHighlighted = false
    var isFocused = false
    var isValid = false { didSet { button.isEnabled = isValid } }
    let button = HandFormButton()

    var buttonIsEnabled: Bool { button.isEnabled }
}

/// One step of the form: flip `factor` (0 to 4) of `field`.
@MainActor @inline(__always)
func flipFormFactor<Field: BenchFormField>(_ field: Field, _ factor: Int) {
    switch factor {
    case 0: field.isEnabled.toggle()
    case 1: field.isSelected.toggle()
    case 2: field.isHighlighted.toggle()
    case 3: field.isFocused.toggle()
    default: field.isValid.toggle()
    }
}

/// The form's fields, the seeded sequence of steps, and the fields driven through the
/// sequence twice (so every state pair the sequence meets again was diffed once, and every
/// field is back where it started).
@MainActor
struct Form {
    static let fieldCount = 100
    /// Steps before the sequence repeats; a power of two.
    static let stepCount = 4096

    let controls: [StatefulFormField]
    let hands: [HandFormField]
    /// Each step's field index and factor (0 to 4), packed as field * 8 + factor.
    let steps: [Int]

    init(valid: ControlState, verify: Bool) {
        controls = (0..<Self.fieldCount).map { _ in StatefulFormField(valid: valid) }
        hands = (0..<Self.fieldCount).map { _ in HandFormField() }
        var rng = SplitMix64(seed: 0x464F_524D)
        steps = (0..<Self.stepCount).map { _ in
            Int.random(in: 0..<Self.fieldCount, using: &rng) * 8 + Int.random(in: 0..<5, using: &rng)
        }
        var enablings = 0
        for pass in 0..<2 {
            for (index, step) in steps.enumerated() {
                let field = step >> 3, factor = step & 7
                flipFormFactor(controls[field], factor)
                flipFormFactor(hands[field], factor)
                if verify, controls[field].buttonIsEnabled != hands[field].buttonIsEnabled {
                    fatalError("form: the implementations disagree at pass \(pass) step \(index) (field \(field), factor \(factor)): Control's button isEnabled=\(controls[field].buttonIsEnabled), hand-written's \(hands[field].buttonIsEnabled)")
                }
                if factor == 4, controls[field].buttonIsEnabled { enablings += 1 }
            }
        }
        if verify {
            for field in 0..<Self.fieldCount where controls[field].buttonIsEnabled != hands[field].buttonIsEnabled
                || controls[field].isValid != hands[field].isValid || controls[field].state.contains(.disabled) == hands[field].isEnabled {
                fatalError("form: field \(field) differs after the sequence")
            }
            precondition(enablings > 0, "form: the sequence never enabled a button")
        }
    }

    /// The fraction of steps that flip `isValid` (and so change a button).
    var validFlipFraction: Double { Double(steps.count(where: { $0 & 7 == 4 })) / Double(steps.count) }
}

// MARK: - bindings-1000: one control, 1,000 bound values

/// A target with an Int property.
final class IntTarget: @unchecked Sendable {
    var value = 0
}

/// The hand-written implementation's target (the same class, no key path to it).
final class HandIntTarget: @unchecked Sendable {
    var value = 0
}

/// The rules of target `index`: `index + 1` while selected (priority 999); `-(index + 1)`
/// while focused for every hundredth target, while highlighted for the others (priority 998);
/// 0 (the default) otherwise. Normal <-> selected changes all 1,000 values, normal <->
/// focused changes 10 (1 %).
@MainActor
func makeBoundControl(_ targets: [IntTarget]) -> Control {
    let control = Control()
    for (index, target) in targets.enumerated() {
        control.setValue(index + 1, for: \.value, of: target, when: .containing(.selected))
        control.setValue(-(index + 1), for: \.value, of: target,
                         when: .containing(index % 100 == 0 ? .focused : .highlighted, priority: 998))
    }
    return control
}

/// The same by hand: a loop over the 1,000 targets, an `if` chain each, writing changed values.
@MainActor
final class HandBindings {
    var isSelected = false { didSet { update() } }
    var isHighlighted = false { didSet { update() } }
    var isFocused = false { didSet { update() } }
    let targets: [HandIntTarget]

    init(_ targets: [HandIntTarget]) {
        self.targets = targets
        update()
    }

    func update() {
        let isSelected = isSelected, isHighlighted = isHighlighted, isFocused = isFocused
        for (index, target) in targets.enumerated() {
            let value: Int
            if isSelected { value = index + 1 }
            else if index % 100 == 0 ? isFocused : isHighlighted { value = -(index + 1) }
            else { value = 0 }
            if target.value != value { target.value = value }
        }
    }
}

/// Both implementations of bindings-1000, checked to agree after toggling each pair of states.
@MainActor
func makeBindings1000(verify: Bool) -> (Control, [IntTarget], HandBindings, [HandIntTarget]) {
    let controlTargets = (0..<1000).map { _ in IntTarget() }
    let handTargets = (0..<1000).map { _ in HandIntTarget() }
    let control = makeBoundControl(controlTargets)
    let hand = HandBindings(handTargets)
    func check(_ step: String, changed expected: Int? = nil, previous: [Int] = []) {
        guard verify else { return }
        for index in 0..<1000 where controlTargets[index].value != handTargets[index].value {
            fatalError("bindings-1000: target \(index) is \(controlTargets[index].value) through Control, \(handTargets[index].value) by hand, \(step)")
        }
        if let expected {
            let changed = (0..<1000).count(where: { controlTargets[$0].value != previous[$0] })
            precondition(changed == expected, "bindings-1000: \(changed) values changed \(step), not \(expected)")
        }
    }
    check("after init")
    for _ in 0..<2 {
        var before = controlTargets.map(\.value)
        control.isSelected.toggle(); hand.isSelected.toggle()
        check("after selecting", changed: 1000, previous: before)
        before = controlTargets.map(\.value)
        control.isSelected.toggle(); hand.isSelected.toggle()
        check("after deselecting", changed: 1000, previous: before)
        before = controlTargets.map(\.value)
        control.isFocused.toggle(); hand.isFocused.toggle()
        check("after focusing", changed: 10, previous: before)
        before = controlTargets.map(\.value)
        control.isFocused.toggle(); hand.isFocused.toggle()
        check("after unfocusing", changed: 10, previous: before)
    }
    return (control, controlTargets, hand, handTargets)
}

// MARK: - The scenarios

extension Scenarios {
    /// Ratio and allocation lines for the end-to-end scenarios, printed after the table.
    /// The scenarios that drive a control end to end, next to the same behaviour by hand.
    static let endToEndScenarios = ["update-baseline", "form", "bindings-1000"]

    static func endToEndSummary(_ results: [Result]) -> String {
        let rows = results.filter { endToEndScenarios.contains($0.scenario) }
        guard !rows.isEmpty else { return "" }
        var lines = ["End to end through Control vs hand-written (ns per op; heap allocations/frees per op, process-wide):"]
        for r in rows {
            let params = r.params.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            func pad(_ text: String, _ width: Int) -> String { text + String(repeating: " ", count: max(0, width - text.count)) }
            let ratio = r.ratioToHandWritten.map { String(format: "%7.2f", $0) } ?? "      -"
            lines.append("  " + pad(r.scenario, 16) + pad(r.implementation, 72) + pad(params, 56)
                + String(format: "median %10.2f  p99 %10.2f  x hand ", r.nsPerOpMedian, r.nsPerOpP99) + ratio
                + String(format: "  heap allocs %.4g  frees %.4g", r.heapAllocationsPerOp ?? .nan, r.heapFreesPerOp ?? .nan))
        }
        return lines.joined(separator: "\n")
    }

    /// The name of the reference for × hand: the hand-written implementation writing only
    /// changed values.
    static func isHandWrittenReference(_ result: Result) -> Bool {
        endToEndScenarios.contains(result.scenario) && result.implementation.hasPrefix("hand-written (changed only)")
    }

    // MARK: update-baseline

    func updateBaseline() {
        let (control, hand, always) = makeUpdateBaselineButtons(verify: true)
        let params: [String: Param] = ["factors": .int(3), "bound_values": .int(6), "cycle": .string("8 factor changes")]
        let note = "ns per factor change over the 8-step cycle (H on, off, select, H on, off, disable, enable, deselect)"
        var controlStep = 0, handStep = 0, alwaysStep = 0
        report.run("update-baseline", "Control (setValue bindings)", params, note: note) { count in
            for _ in 0..<count { buttonCycleStep(control, controlStep); controlStep &+= 1 }
        }
        report.run("update-baseline", "hand-written (changed only)", params, note: "didSet { update() }, if chains, compare before writing") { count in
            for _ in 0..<count { buttonCycleStep(hand, handStep); handStep &+= 1 }
        }
        report.run("update-baseline", "hand-written (always writes all 6)", params, note: "didSet { update() }, if chains, every value written") { count in
            for _ in 0..<count { buttonCycleStep(always, alwaysStep); alwaysStep &+= 1 }
        }
        withExtendedLifetime((control, hand, always)) {}
    }

    // MARK: form

    func form() throws {
        let form = Form(valid: benchValidState(), verify: true)
        let params: [String: Param] = ["fields": .int(Form.fieldCount), "factors_per_field": .int(5),
                                       "valid_flips": .string(String(format: "%.1f%%", form.validFlipFraction * 100))]
        let steps = form.steps, controls = form.controls, hands = form.hands
        // Whole passes keep every field's states on the pairs the warm-up diffed.
        var controlPosition = 0, handPosition = 0
        report.run("form", "Control (custom state + bound isEnabled)", params,
                   note: "ns per factor flip of a random field (seeded); a flip of isValid writes its button's isEnabled, a Control") { count in
            for _ in 0..<count {
                let step = steps[controlPosition & (Form.stepCount - 1)]
                flipFormFactor(controls[step >> 3], step & 7)
                controlPosition &+= 1
            }
        }
        report.run("form", "hand-written (changed only)", params, note: "didSet on isValid writes button.isEnabled") { count in
            for _ in 0..<count {
                let step = steps[handPosition & (Form.stepCount - 1)]
                flipFormFactor(hands[step >> 3], step & 7)
                handPosition &+= 1
            }
        }
    }

    // MARK: bindings-1000

    func bindings1000() {
        let (control, controlTargets, hand, handTargets) = makeBindings1000(verify: true)
        for percent in [100, 1] {
            let params: [String: Param] = ["bindings": .int(1000), "changing_percent": .int(percent),
                                           "op": .string("state change")]
            let factor = percent == 100 ? "isSelected" : "isFocused"
            let note = percent == 100 ? "normal <-> selected: all 1,000 values change" : "normal <-> focused: 10 of the 1,000 values change"
            let controlResult = report.run("bindings-1000", "Control (\(factor) toggle)", params, note: note) { count in
                if percent == 100 {
                    for _ in 0..<count { control.isSelected.toggle() }
                } else {
                    for _ in 0..<count { control.isFocused.toggle() }
                }
            }
            let handResult = report.run("bindings-1000", "hand-written (changed only) (\(factor) toggle)", params,
                                        note: "\(note); didSet { update() }, a loop of if chains, compare before writing") { count in
                if percent == 100 {
                    for _ in 0..<count { hand.isSelected.toggle() }
                } else {
                    for _ in 0..<count { hand.isFocused.toggle() }
                }
            }
            // Back to normal, whatever the number of toggles was.
            control.isSelected = false; hand.isSelected = false
            control.isFocused = false; hand.isFocused = false
            if percent == 100 {
                for var perValue in [controlResult, handResult] {
                    perValue.params["op"] = .string("value written")
                    perValue.nsPerOpMedian /= 1000
                    perValue.nsPerOpP99 /= 1000
                    perValue.opsPerSec = 1e9 / perValue.nsPerOpMedian
                    perValue.allocationsPerOp = perValue.allocationsPerOp.map { $0 / 1000 }
                    perValue.heapAllocationsPerOp = perValue.heapAllocationsPerOp.map { $0 / 1000 }
                    perValue.heapFreesPerOp = perValue.heapFreesPerOp.map { $0 / 1000 }
                    perValue.note = "the per-state-change figure over the 1,000 values each change writes"
                    report.record(perValue)
                }
            }
        }
        precondition(controlTargets.indices.allSatisfy { controlTargets[$0].value == handTargets[$0].value },
                     "bindings-1000: the implementations disagree after the measurements")
    }
}

// MARK: - Loops for callgrind

/// A body run inside bench_ir_region, on the main actor.
@MainActor
final class MainActorBody {
    let body: @MainActor () -> Void
    init(_ body: @escaping @MainActor () -> Void) { self.body = body }
}

enum EndToEndIR {
    static let names = ["update-baseline-control", "update-baseline-hand", "update-baseline-hand-always",
                        "form-control", "form-hand",
                        "bindings-1000-100pct-control", "bindings-1000-100pct-hand",
                        "bindings-1000-1pct-control", "bindings-1000-1pct-hand",
                        "custom-states-8-factors", "custom-states-8-extended-factors", "custom-states-40-factors",
                        "custom-states-8-predicates", "custom-states-40-predicates"]

    /// Sets the loop up (warm: every state pair it meets was applied before), runs it inside
    /// bench_ir_region, checks that it did its work (the values shown match the factors), and
    /// prints the iterations. One iteration is one factor change (one state change for
    /// bindings-1000).
    @MainActor
    static func run(_ name: String, iterations requested: Int) throws {
        let iterations: Int
        let body: MainActorBody
        let check: @MainActor () -> Bool
        func shows<Button: BenchButton>(_ button: Button) -> Bool {
            button.appearance == handAppearance(isEnabled: button.isEnabled, isSelected: button.isSelected,
                                                isHighlighted: button.isHighlighted)
        }
        switch name {
        case "update-baseline-control", "update-baseline-hand", "update-baseline-hand-always":
            iterations = requested
            let (control, hand, always) = makeUpdateBaselineButtons(verify: false)
            switch name {
            case "update-baseline-control":
                body = MainActorBody { for step in 0..<iterations { buttonCycleStep(control, step) } }
                check = { shows(control) }
            case "update-baseline-hand":
                body = MainActorBody { for step in 0..<iterations { buttonCycleStep(hand, step) } }
                check = { shows(hand) }
            default:
                body = MainActorBody { for step in 0..<iterations { buttonCycleStep(always, step) } }
                check = { shows(always) }
            }
        case "form-control", "form-hand":
            iterations = requested
            let form = Form(valid: benchValidState(), verify: false)
            let steps = form.steps, controls = form.controls, hands = form.hands
            if name == "form-control" {
                body = MainActorBody {
                    for i in 0..<iterations { let step = steps[i & (Form.stepCount - 1)]; flipFormFactor(controls[step >> 3], step & 7) }
                }
                check = { controls.allSatisfy { $0.buttonIsEnabled == $0.isValid } }
            } else {
                body = MainActorBody {
                    for i in 0..<iterations { let step = steps[i & (Form.stepCount - 1)]; flipFormFactor(hands[step >> 3], step & 7) }
                }
                check = { hands.allSatisfy { $0.buttonIsEnabled == $0.isValid } }
            }
        case _ where name.hasPrefix("custom-states-"):
            // custom-states-<8|8-extended|40>-<factors|predicates>
            iterations = requested
            let shape = name.contains("-8-extended-") ? "extended" : name.contains("-8-") ? "application" : "both"
            let registration = ManyStatesControl.Registration(rawValue: String(name.split(separator: "-").last!))!
            let toggle = CustomStateToggle(states: CustomStateToggle.shapes.first { $0.name == shape }!.states, registration: registration)
            body = MainActorBody { for i in 0..<iterations { toggle.step(i) } }
            check = { toggle.showsInputs }
        default:
            // A 100 % change writes 1,000 values: a thousandth of the iterations keeps callgrind
            // short; a 1 % change writes 10, a hundredth. An odd count ends away from normal.
            let all = name.contains("-100pct-")
            iterations = max(1, requested / (all ? 1000 : 100)) | 1
            // The Control holds its targets weakly: the loop keeps them alive.
            let (control, controlTargets, hand, handTargets) = makeBindings1000(verify: false)
            func expected(_ index: Int, selected: Bool, focused: Bool) -> Int {
                selected ? index + 1 : focused && index % 100 == 0 ? -(index + 1) : 0
            }
            if name.hasSuffix("-control") {
                body = all
                    ? MainActorBody { for _ in 0..<iterations { control.isSelected.toggle() } }
                    : MainActorBody { for _ in 0..<iterations { control.isFocused.toggle() } }
                check = {
                    (control.isSelected || control.isFocused) && controlTargets.indices.allSatisfy {
                        controlTargets[$0].value == expected($0, selected: control.isSelected, focused: control.isFocused)
                    }
                }
            } else {
                body = all
                    ? MainActorBody { for _ in 0..<iterations { hand.isSelected.toggle() } }
                    : MainActorBody { for _ in 0..<iterations { hand.isFocused.toggle() } }
                check = {
                    (hand.isSelected || hand.isFocused) && handTargets.indices.allSatisfy {
                        handTargets[$0].value == expected($0, selected: hand.isSelected, focused: hand.isFocused)
                    }
                }
            }
        }
        bench_ir_region({ pointer in
            MainActor.assumeIsolated { Unmanaged<MainActorBody>.fromOpaque(pointer!).takeUnretainedValue().body() }
        }, Unmanaged.passUnretained(body).toOpaque())
        withExtendedLifetime(body) {}
        guard check() else { fatalError("--ir-loop \(name): the values shown after the loop do not match the factors") }
        print("iterations: \(iterations)")
    }
}
