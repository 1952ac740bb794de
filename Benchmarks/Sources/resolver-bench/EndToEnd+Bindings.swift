// The bindings-1000 scenario: one control, 1,000 bound values, through the library, by hand, and
// as the portable access's plain-Swift floor.

import SeededRandom
import CBenchSupport
import StatefulControls

// MARK: - bindings-1000: one control, 1,000 bound values

/// What a bindings-1000 loop toggles: the library's control, the hand-written code, the floor.
@MainActor
protocol BenchBindings1000: AnyObject {
    var isSelected: Bool { get set }
    var isFocused: Bool { get set }
}

extension Control: BenchBindings1000 {}

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
final class HandBindings: BenchBindings1000 {
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

// MARK: - The portable access's floor: the same work in plain Swift, no library

/// The least any plain-Swift property access can do for bindings-1000: each target held by a
/// weak reference (plain Swift's only liveness check for an object that does not report its
/// end), each changed value assigned through the key path bound — `IntTarget.value`, the
/// property the control writes, so with the same exclusivity check — and nothing else: no
/// rule, no diff, the changed values known for free. The portable access's goal lines cannot go
/// below it (make bench-ir prints it beside them). `holdsTargets`: held by strong references
/// instead, with no liveness check — what a target that reported its own end at no cost would
/// leave.
@MainActor
final class PortableFloor: BenchBindings1000 {
    /// A class: a struct holding a weak reference is copied with a runtime call.
    private final class Reference {
        weak var target: IntTarget?
        init(_ target: IntTarget) { self.target = target }
    }
    /// The targets, by weak references unless held strongly; the other array is empty.
    private let references: [Reference], held: [IntTarget]
    /// The targets' number, stored: bounded by the arrays' counts instead, the loops measured an
    /// instruction a value more.
    private let count: Int
    /// The key path taken from ``propertyTable()``; nil: the literal `\.value`.
    private let keyPath: ReferenceWritableKeyPath<IntTarget, Int>?

    /// Writes the 1,000 values of the selected state (or of none).
    var isSelected = false { didSet { write(at: 0..<count) { isSelected ? $0 + 1 : 0 } } }
    /// Writes the 10 values the focused state changes (while not selected).
    var isFocused = false { didSet { write(at: stride(from: 0, to: count, by: 100)) { isFocused ? -($0 + 1) : 0 } } }

    init(_ targets: [IntTarget], keyPathsFromATable: Bool, holdsTargets: Bool) {
        (references, held) = holdsTargets ? ([], targets) : (targets.map(Reference.init), [])
        count = targets.count
        keyPath = keyPathsFromATable ? propertyTable()[0] : nil
    }

    /// Assigns `value(index)` to the target at each index: one loop for each way, no test of it
    /// at each value.
    @inline(__always)
    private func write(at indices: some Sequence<Int>, _ value: (Int) -> Int) {
        if let keyPath {
            write(at: indices, value) { $0[keyPath: keyPath] = $1 }
        } else {
            write(at: indices, value) { $0[keyPath: \.value] = $1 }
        }
    }

    @inline(__always)
    private func write(at indices: some Sequence<Int>, _ value: (Int) -> Int, _ assign: (IntTarget, Int) -> Void) {
        if held.isEmpty {
            for index in indices { if let target = references[index].target { assign(target, value(index)) } }
        } else {
            for index in indices { assign(held[index], value(index)) }
        }
    }
}
