// The bindings-1000 scenario: one control, 1,000 bound values, through the library and by hand.

import SeededRandom
import CBenchSupport
import StatefulControls

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
///
/// With `keyPaths`, the key path of `value` is taken from that table (as code that binds a
/// table of properties does) instead of written as a literal where it is bound.
@MainActor
func makeBoundControl(_ targets: [IntTarget], keyPaths: [ReferenceWritableKeyPath<IntTarget, Int>]? = nil) -> Control {
    let control = Control()
    for (index, target) in targets.enumerated() {
        if let keyPaths {
            let keyPath = keyPaths[index % keyPaths.count]
            control.setValue(index + 1, for: keyPath, of: target, when: .containing(.selected))
            control.setValue(
                -(index + 1), for: keyPath, of: target,
                when: .containing(index % 100 == 0 ? .focused : .highlighted, priority: 998))
        } else {
            control.setValue(index + 1, for: \.value, of: target, when: .containing(.selected))
            control.setValue(
                -(index + 1), for: \.value, of: target,
                when: .containing(index % 100 == 0 ? .focused : .highlighted, priority: 998))
        }
    }
    return control
}

/// The key paths bindings-1000 takes from a table: a value the optimiser cannot see through.
@inline(never)
func propertyTable() -> [ReferenceWritableKeyPath<IntTarget, Int>] { [\.value] }

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
            if isSelected {
                value = index + 1
            } else if index % 100 == 0 ? isFocused : isHighlighted {
                value = -(index + 1)
            } else {
                value = 0
            }
            if target.value != value { target.value = value }
        }
    }
}

/// Both implementations of bindings-1000, checked to agree after toggling each pair of states.
/// `keyPathsFromATable`: the control's key paths come from ``propertyTable()``.
@MainActor
func makeBindings1000(verify: Bool, keyPathsFromATable: Bool = false) -> (Control, [IntTarget], HandBindings, [HandIntTarget]) {
    let controlTargets = (0..<1000).map { _ in IntTarget() }
    let handTargets = (0..<1000).map { _ in HandIntTarget() }
    let control = makeBoundControl(controlTargets, keyPaths: keyPathsFromATable ? propertyTable() : nil)
    let hand = HandBindings(handTargets)
    func check(_ step: String, changed expected: Int? = nil, previous: [Int] = []) {
        guard verify else { return }
        for index in 0..<1000 where controlTargets[index].value != handTargets[index].value {
            fatalError(
                "bindings-1000: target \(index) is \(controlTargets[index].value) through Control, \(handTargets[index].value) by hand, \(step)"
            )
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
