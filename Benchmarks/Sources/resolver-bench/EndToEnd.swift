// What a user pays end to end through the public `Control` API, next to the same behaviour
// written by hand: factors with `didSet { update() }` and a chain of `if`s.
//
// Every Control of the scenarios (EndToEnd+Button, +Form, +Bindings) is driven through its
// public factors only; every hand-written class holds the same subviews and properties and
// computes the same values. Each scenario checks once, before it measures, that the
// implementations agree after every step.
//
// The hand-written implementations have target classes of their own (Hand…), identical to
// the Control's: forming a key path to a class's stored property (as every setValue does)
// makes the compiler keep dynamic exclusivity checks (swift_beginAccess) on every access to
// that property in the module, which would charge the hand-written code for the library's
// key paths.

import SeededRandom
import CBenchSupport
import StatefulControls

// MARK: - The scenarios

extension Scenarios {
    /// The scenarios that drive a control end to end, next to the same behaviour by hand.
    static let endToEndScenarios = ["update-baseline", "form", "bindings-1000"]

    /// Ratio and allocation lines for the end-to-end scenarios, printed after the table.
    static func endToEndSummary(_ results: [Result]) -> String {
        let rows = results.filter { endToEndScenarios.contains($0.scenario) }
        guard !rows.isEmpty else { return "" }
        var lines = ["End to end through Control vs hand-written (ns per op; heap allocations/frees per op, process-wide):"]
        for r in rows {
            let params = r.params.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            func pad(_ text: String, _ width: Int) -> String { text + String(repeating: " ", count: max(0, width - text.count)) }
            let ratio = r.ratioToHandWritten.map { String(format: "%7.2f", $0) } ?? "      -"
            lines.append(
                "  " + pad(r.scenario, 16) + pad(r.implementation, 72) + pad(params, 56)
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
        report.run("update-baseline", "hand-written (changed only)", params, note: "didSet { update() }, if chains, compare before writing")
        { count in
            for _ in 0..<count { buttonCycleStep(hand, handStep); handStep &+= 1 }
        }
        report.run(
            "update-baseline", "hand-written (always writes all 6)", params, note: "didSet { update() }, if chains, every value written"
        ) { count in
            for _ in 0..<count { buttonCycleStep(always, alwaysStep); alwaysStep &+= 1 }
        }
        withExtendedLifetime((control, hand, always)) {}
    }

    // MARK: form

    func form() throws {
        let form = Form(valid: benchValidState(), verify: true)
        let params: [String: Param] = [
            "fields": .int(Form.fieldCount), "factors_per_field": .int(5),
            "valid_flips": .string(String(format: "%.1f%%", form.validFlipFraction * 100)),
        ]
        let steps = form.steps, controls = form.controls, hands = form.hands
        // Whole passes keep every field's states on the pairs the warm-up diffed.
        var controlPosition = 0, handPosition = 0
        report.run(
            "form", "Control (custom state + bound isEnabled)", params,
            note: "ns per factor flip of a random field (seeded); a flip of isValid writes its button's isEnabled, a Control"
        ) { count in
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
            let params: [String: Param] = [
                "bindings": .int(1000), "changing_percent": .int(percent),
                "op": .string("state change"),
            ]
            let factor = percent == 100 ? "isSelected" : "isFocused"
            let note = percent == 100 ? "normal <-> selected: all 1,000 values change" : "normal <-> focused: 10 of the 1,000 values change"
            let controlResult = report.run("bindings-1000", "Control (\(factor) toggle)", params, note: note) { count in
                if percent == 100 {
                    for _ in 0..<count { control.isSelected.toggle() }
                } else {
                    for _ in 0..<count { control.isFocused.toggle() }
                }
            }
            let handResult = report.run(
                "bindings-1000", "hand-written (changed only) (\(factor) toggle)", params,
                note: "\(note); didSet { update() }, a loop of if chains, compare before writing"
            ) { count in
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
                let (tableControl, tableTargets, _, _) = makeBindings1000(verify: true, keyPathsFromATable: true)
                let tableResult = report.run(
                    "bindings-1000", "Control, key paths from a table (isSelected toggle)", params,
                    note: "\(note); each key path taken from an array, not written as a literal where bound"
                ) { count in for _ in 0..<count { tableControl.isSelected.toggle() } }
                tableControl.isSelected = false
                precondition(tableTargets.allSatisfy { $0.value == 0 }, "bindings-1000: key paths from a table wrote other values")
                for var perValue in [controlResult, tableResult, handResult] {
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
        precondition(
            controlTargets.indices.allSatisfy { controlTargets[$0].value == handTargets[$0].value },
            "bindings-1000: the implementations disagree after the measurements")
    }
}
