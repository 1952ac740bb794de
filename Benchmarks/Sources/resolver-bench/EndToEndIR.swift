// The end-to-end loops counted under callgrind (make bench-ir).

import SeededRandom
import CBenchSupport
import StatefulControls

// MARK: - Loops for callgrind

/// A body run inside bench_ir_region, on the main actor.
@MainActor
final class MainActorBody {
    let body: @MainActor () -> Void
    init(_ body: @escaping @MainActor () -> Void) { self.body = body }
}

enum EndToEndIR {
    static let names = [
        "update-baseline-control", "update-baseline-hand", "update-baseline-hand-always",
        "form-control", "form-hand",
        "bindings-1000-100pct-control", "bindings-1000-100pct-hand",
        "bindings-1000-1pct-control", "bindings-1000-1pct-hand", "bindings-1000-100pct-table-control",
        "bindings-1000-100pct-floor", "bindings-1000-1pct-floor", "bindings-1000-100pct-table-floor",
        "bindings-1000-100pct-held-floor",
        "custom-states-8-factors", "custom-states-8-extended-factors", "custom-states-40-factors",
        "custom-states-8-predicates", "custom-states-40-predicates", "bind-control",
        "button-list-control", "button-rules-control", "dot-list-control", "dot-rules-control", "dot-closure-control",
    ]

    /// Sets the loop up (warm: every state pair it meets was applied before), runs it inside
    /// bench_ir_region, checks that it did its work (the values shown match the factors), and
    /// prints the iterations. One iteration is one factor change (one state change for
    /// bindings-1000; one new binding, `Control.setValue`, for bind-control).
    @MainActor
    static func run(_ name: String, iterations requested: Int) throws {
        let iterations: Int
        let body: MainActorBody
        let check: @MainActor () -> Bool
        func shows<Button: BenchButton>(_ button: Button) -> Bool {
            button.appearance
                == handAppearance(
                    isEnabled: button.isEnabled, isSelected: button.isSelected,
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
            // Warm, as the loop leaves it: the setup reads each button's isEnabled (a read
            // Observation is told of), and the first changes after a read report to it — a
            // fixed cost the measured loop would otherwise spread over its iterations.
            for step in steps { flipFormFactor(controls[step >> 3], step & 7); flipFormFactor(hands[step >> 3], step & 7) }
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
        case "button-list-control", "button-rules-control":
            iterations = requested
            let button = ListBenchButton(asList: name == "button-list-control")
            for step in 0..<8 { buttonCycleStep(button, step) }  // warm: every pair of states seen
            body = MainActorBody { for step in 0..<iterations { buttonCycleStep(button, step) } }
            check = { shows(button) }
        case "dot-list-control", "dot-rules-control", "dot-closure-control":
            iterations = requested
            let dot = ListBenchDot(name == "dot-list-control" ? .list : name == "dot-rules-control" ? .rules : .closures)
            for step in 0..<iterations { dot.step(step) }  // warm: every state the cycle reaches
            body = MainActorBody { for step in 0..<iterations { dot.step(step) } }
            check = { dot.showsItsLists }
        case "bind-control":
            // The memory scenario's bind: four properties of each target, all on one control.
            iterations = requested
            let control = Control(), cells = (0..<(iterations + 3) / 4).map { _ in MemoryCell() }
            body = MainActorBody {
                for index in 0..<iterations {
                    let cell = cells[index >> 2]
                    switch index & 3 {
                    case 0: control.setValue(index, for: \.a, of: cell, when: .containing(.highlighted))
                    case 1: control.setValue(index, for: \.b, of: cell, when: .containing(.highlighted))
                    case 2: control.setValue(index, for: \.c, of: cell, when: .containing(.highlighted))
                    default: control.setValue(index, for: \.d, of: cell, when: .containing(.highlighted))
                    }
                }
            }
            check = {
                control.isHighlighted = true
                return cells.indices.allSatisfy { cells[$0].a == 4 * $0 && (4 * $0 + 3 >= iterations || cells[$0].d == 4 * $0 + 3) }
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
            func expected(_ index: Int, selected: Bool, focused: Bool) -> Int {
                selected ? index + 1 : focused && index % 100 == 0 ? -(index + 1) : 0
            }
            /// The loop toggling `subject`'s selected (100 %) or focused (1 %) factor, and its
            /// check that each target's value, `value(index)`, is the factors'.
            @inline(__always)
            func toggling(_ subject: some BenchBindings1000, _ value: @escaping (Int) -> Int) -> (MainActorBody, @MainActor () -> Bool) {
                let body =
                    all
                    ? MainActorBody { for _ in 0..<iterations { subject.isSelected.toggle() } }
                    : MainActorBody { for _ in 0..<iterations { subject.isFocused.toggle() } }
                return (
                    body,
                    {
                        (subject.isSelected || subject.isFocused)
                            && (0..<1000).allSatisfy { value($0) == expected($0, selected: subject.isSelected, focused: subject.isFocused) }
                    }
                )
            }
            if name.hasSuffix("-floor") {
                // Its references are weak: the loop keeps the targets alive.
                let targets = (0..<1000).map { _ in IntTarget() }
                let floor = PortableFloor(
                    targets, keyPathsFromATable: name.contains("-table-"), holdsTargets: name.contains("-held-"))
                (body, check) = toggling(floor) { targets[$0].value }
                break
            }
            // The Control holds its targets weakly: the loop keeps them alive.
            let (control, controlTargets, hand, handTargets) = makeBindings1000(
                verify: false, keyPathsFromATable: name.contains("-table-"))
            (body, check) =
                name.hasSuffix("-control")
                ? toggling(control) { controlTargets[$0].value } : toggling(hand) { handTargets[$0].value }
        }
        let heapAllocationsBefore = bench_malloc_count()
        bench_ir_region(
            { pointer in
                MainActor.assumeIsolated { Unmanaged<MainActorBody>.fromOpaque(pointer!).takeUnretainedValue().body() }
            }, Unmanaged.passUnretained(body).toOpaque())
        // Every heap allocation of the process during the loop, by the benchmark's malloc counter
        // (read before the check, whose reads may allocate: a control read through its getters
        // makes its Observation registrar).
        let heapAllocations = bench_malloc_count() - heapAllocationsBefore
        withExtendedLifetime(body) {}
        guard check() else { fatalError("--ir-loop \(name): the values shown after the loop do not match the factors") }
        print("heap allocations: \(heapAllocations)")
        print("iterations: \(iterations)")
    }
}
