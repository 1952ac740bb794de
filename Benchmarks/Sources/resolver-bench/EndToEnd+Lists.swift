// The same rules bound as lists (StateValues, one call a property) and one value at a time
// (setValue per entry of the same lists): a button and a PIN dot, each both ways. Binding
// through a list must cost no more per state change (make bench-ir: within 2 %).

import StatefulControls

/// The button of update-baseline, its six properties as lists, in its rules' priority order.
@MainActor
enum ButtonLists {
    static let textColor: StateValues<Color> = [
        .containing(.disabled): .grey, .exactly([.selected, .highlighted]): .purple,
        .containing(.highlighted): .white, .containing(.selected): .green,
    ]
    static let backgroundColor: StateValues<Color> = [
        .containing(.disabled): .clear, .exactly(.normal): .white,
        .containing(.highlighted): .darkGrey, .containing(.selected): .blue,
    ]
    static let alpha: StateValues<Double> = [
        .containing(.disabled): 0.4, .containing(.highlighted): 0.8, .notContaining(.highlighted): 1.0,
    ]
    static let badgeIsHidden: StateValues<Bool> = [
        .containing(.disabled): true, .containing(.selected): false, .notContaining(.selected): true,
    ]
    static let text: StateValues<String> = [
        .containing(.disabled): "Unavailable", .exactly(.highlighted): "Pressed", .containing(.selected): "Selected",
    ]
    static let badgeCount: StateValues<Int> = [
        .exactly([.selected, .highlighted]): 2, .containing(.selected): 1, .notContaining(.selected): 0,
    ]
}

extension ControlState {
    /// The bench dot's verdicts, in the application range (the library's own are reserved).
    static let benchValid = try! ControlState.allocate(named: "org.statefulcontrols.bench.valid")
    static let benchInvalid = try! ControlState.allocate(named: "org.statefulcontrols.bench.invalid")
}

/// PinDot's three lists (the library's, copied: they are not API), with the bench's verdicts.
@MainActor
enum DotLists {
    static let valid = ControlState.benchValid, invalid = ControlState.benchInvalid
    static let fill: StateValues<Color> = [
        .containing([.selected, .disabled]): .grey, .containing([.selected, valid]): .green,
        .containing([.selected, invalid]): .red, .containing([.selected, .highlighted]): .blue,
        .containing(.selected): .white,
    ]
    static let border: StateValues<Color> = [
        .containing(.disabled): .darkGrey, .containing(valid): .green,
        .containing(invalid): .red, .containing(.highlighted): .blue,
    ]
    static let borderWidth: StateValues<Double> = [
        .containing(.disabled): 0.5, .containingAny([.highlighted, invalid]): 2.0,
    ]
}

extension Control {
    /// Binds `values` to `keyPath` of `target` as a list, or entry by entry with `setValue`.
    /// Inlined, with the key path an autoclosure: at each call the key path is a literal, as in
    /// an application's code, and the portable access folds it into an assignment.
    @inline(__always)
    func bind<Target: AnyObject, Value>(
        _ values: StateValues<Value>, to keyPath: @autoclosure () -> ReferenceWritableKeyPath<Target, Value>, of target: Target,
        asList: Bool
    ) {
        if asList {
            setValues(values, for: keyPath(), of: target)
        } else {
            for entry in values.entries { setValue(entry.value, for: keyPath(), of: target, when: entry.descriptor) }
        }
    }
}

/// The update-baseline button with its values bound from ``ButtonLists``, either way.
final class ListBenchButton: Control, BenchButton {
    var alpha = 1.0
    let titleLabel = BenchTitleLabel()
    let background = BenchBackgroundView()
    let badge = BenchBadgeView()

    init(asList: Bool) {
        super.init(frame: Rect(x: 0, y: 0, width: 120, height: 44))
        addSubview(background)
        addSubview(titleLabel)
        addSubview(badge)
        bind(ButtonLists.textColor, to: \.textColor, of: titleLabel, asList: asList)
        bind(ButtonLists.backgroundColor, to: \.backgroundColor, of: background, asList: asList)
        bind(ButtonLists.alpha, to: \.alpha, of: self, asList: asList)
        bind(ButtonLists.badgeIsHidden, to: \.isHidden, of: badge, asList: asList)
        bind(ButtonLists.text, to: \.text, of: titleLabel, asList: asList)
        bind(ButtonLists.badgeCount, to: \.count, of: badge, asList: asList)
    }

    var appearance: ButtonAppearance {
        ButtonAppearance(
            textColor: titleLabel.textColor, backgroundColor: background.backgroundColor, alpha: alpha,
            badgeIsHidden: badge.isHidden, text: titleLabel.text, badgeCount: badge.count)
    }
}

/// A PIN dot with ``DotLists`` bound as lists, one rule at a time, or as closures of the state
/// that give each list's value; its verdict factors are custom states.
final class ListBenchDot: Control {
    enum Binding { case list, rules, closures }

    @StateFactor var isValid = false
    @StateFactor var isInvalid = false
    var fillColor = Color.clear
    var borderColor = Color.grey
    var borderWidth = 1.0

    init(_ binding: Binding) {
        super.init(frame: Rect(x: 0, y: 0, width: 16, height: 16))
        register(DotLists.valid, for: \._isValid)
        register(DotLists.invalid, for: \._isInvalid)
        if binding == .closures {
            setValue(for: \.fillColor) { DotLists.fill.value(for: $0) ?? .clear }
            setValue(for: \.borderColor) { DotLists.border.value(for: $0) ?? .grey }
            setValue(for: \.borderWidth) { DotLists.borderWidth.value(for: $0) ?? 1.0 }
        } else {
            bind(DotLists.fill, to: \.fillColor, of: self, asList: binding == .list)
            bind(DotLists.border, to: \.borderColor, of: self, asList: binding == .list)
            bind(DotLists.borderWidth, to: \.borderWidth, of: self, asList: binding == .list)
        }
    }

    /// One step of a fixed 8-step cycle, each step one factor: select, highlight, unhighlight,
    /// valid, not valid, invalid, disable and enable, deselect and not invalid.
    func step(_ step: Int) {
        switch step & 7 {
        case 0: isSelected = true
        case 1: isHighlighted = true
        case 2: isHighlighted = false
        case 3: isValid = true
        case 4: isValid = false
        case 5: isInvalid = true
        case 6: isEnabled.toggle()
        default:
            if isEnabled { isSelected = false } else { isInvalid = false }
        }
    }

    /// What a dot shows after a step, from the lists' first matching entries.
    var showsItsLists: Bool {
        let state = self.state
        return fillColor == DotLists.fill.value(for: state) ?? .clear
            && borderColor == DotLists.border.value(for: state) ?? .grey
            && borderWidth == DotLists.borderWidth.value(for: state) ?? 1.0
    }
}
