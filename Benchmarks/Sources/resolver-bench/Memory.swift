// The memory scenario: what bindings and controls cost in bytes at scale, and how long binding
// and removing them all take, through the public API.

import CBenchSupport
import Foundation
import StatefulControls

/// A bound object with four properties: the memory scenario binds each once.
final class MemoryCell {
    var a = 0, b = 0, c = 0, d = 0
}

/// The process's heap in use and resident set, to measure what some work keeps.
struct MemoryUsage {
    /// Bytes allocated from malloc and not freed (glibc's `mallinfo2`, main arena).
    let heap: Int
    /// Resident pages, in bytes (`/proc/self/statm`).
    let resident: Int

    /// Now, after giving the heap's free pages back to the system (`malloc_trim`), so that the
    /// resident set grows only with what the work keeps.
    static func now() -> MemoryUsage {
        bench_release_free_memory()
        let statm = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? ""
        let pages = statm.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return MemoryUsage(heap: Int(bench_heap_bytes()), resident: pages * Int(sysconf(Int32(_SC_PAGESIZE))))
    }

    /// What grew since `before`, per item, as (heap, resident) bytes.
    func perItem(since before: MemoryUsage, items: Int) -> (heap: Double, resident: Double) {
        (Double(heap - before.heap) / Double(items), Double(resident - before.resident) / Double(items))
    }
}

extension Scenarios {
    // MARK: Memory

    /// Bytes per binding on one control at 1K, 100K and 1M bindings (the bound objects made
    /// before measuring: they are the application's), bind time per `setValue`, and
    /// `removeAllValues()`'s time, each the median of three passes (one with `--quick`); then
    /// bytes per control with two bindings each, the controls included, before and after they
    /// change state (one pass each).
    func memory() {
        for count in quick ? [1_000, 100_000] : [1_000, 100_000, 1_000_000] { bindingsOnOneControl(count) }
        controlsWithTwoBindings(quick ? 10_000 : 100_000)
    }

    private func bindingsOnOneControl(_ count: Int) {
        let cells = (0..<count / 4).map { _ in MemoryCell() }
        let passes = (0..<(quick ? 1 : 3)).map { _ in bindAndRemoveAll(cells) }
        let params: [String: Param] = ["bindings": .int(count), "rules_per_binding": .int(1)]
        let (bind, remove) = (passes.map { $0.bind / Double(count) }.sorted(), passes.map(\.remove).sorted())
        let (resident, heap) = (passes.map(\.bytes.resident).sorted(), passes.map(\.bytes.heap).sorted())
        let of = passes.count == 1 ? "one pass" : "the median of \(passes.count) passes (p99: the slowest)"
        report.record(
            Result(
                scenario: "memory", implementation: "Control.setValue, one control (bind)", params: params,
                nsPerOpMedian: bind[bind.count / 2], nsPerOpP99: bind.last!, opsPerSec: 1e9 / bind[bind.count / 2],
                bytesPerBinding: resident[resident.count / 2],
                note: "\(of); bytes/binding = resident set growth (the passes: "
                    + resident.map { String(format: "%.1f", $0) }.joined(separator: ", ")
                    + String(format: " B; malloc heap growth %.1f B); ", heap[heap.count / 2])
                    + "\(count / 4) objects of 4 Int properties, each bound once"))
        report.record(
            Result(
                scenario: "memory", implementation: "Control.removeAllValues()", params: params,
                nsPerOpMedian: remove[remove.count / 2], nsPerOpP99: remove.last!, opsPerSec: 1e9 / remove[remove.count / 2],
                note: "\(of); ns/op = the whole call"))
    }

    /// Binds each property of `cells` once on a new control, then removes every value: the
    /// bind's and the removal's nanoseconds, and the bytes per binding held in between.
    private func bindAndRemoveAll(_ cells: [MemoryCell]) -> (bind: Double, remove: Double, bytes: (heap: Double, resident: Double)) {
        let before = MemoryUsage.now()
        let start = now()
        let control = Control()
        for (index, cell) in cells.enumerated() {
            control.setValue(index, for: \.a, of: cell, when: .containing(.highlighted))
            control.setValue(index, for: \.b, of: cell, when: .containing(.highlighted))
            control.setValue(index, for: \.c, of: cell, when: .containing(.highlighted))
            control.setValue(index, for: \.d, of: cell, when: .containing(.highlighted))
        }
        let bind = Double(now() - start)
        let bytes = MemoryUsage.now().perItem(since: before, items: cells.count * 4)
        let removeStart = now()
        control.removeAllValues()
        let remove = Double(now() - removeStart)
        withExtendedLifetime(control) {}
        return (bind, remove, bytes)
    }

    /// Bytes per control with two bindings, created and bound (the goal's row); then the same
    /// after each control has changed state four times, with the caches that made (no goal: what
    /// a control in use holds); then with those caches released (`releaseCaches()`: what an idle
    /// control in use holds).
    private func controlsWithTwoBindings(_ count: Int) {
        for pass in ControlsPass.allCases {
            let before = MemoryUsage.now()
            let start = now()
            let controls = (0..<count).map { _ in
                let control = Control()
                control.setValue(true, for: \.isHidden, of: control, when: .containing(.disabled))
                control.setValue(Rect(x: 0, y: 0, width: 44, height: 44), for: \.frame, of: control, when: .containing(.highlighted))
                if pass != .bound {  // normal -> highlighted -> normal -> disabled -> normal
                    control.isHighlighted = true
                    control.isHighlighted = false
                    control.isEnabled = false
                    control.isEnabled = true
                }
                if pass == .released { control.releaseCaches() }
                return control
            }
            let nanoseconds = Double(now() - start) / Double(count)
            let bytes = MemoryUsage.now().perItem(since: before, items: count)
            withExtendedLifetime(controls) {}
            report.record(
                Result(
                    scenario: "memory", implementation: pass.row, params: ["controls": .int(count), "bindings_per_control": .int(2)],
                    nsPerOpMedian: nanoseconds, nsPerOpP99: nanoseconds, opsPerSec: 1e9 / nanoseconds,
                    bytesPerControl: bytes.resident,
                    note: String(format: "one pass; bytes/control = resident set growth (malloc heap growth %.1f B)", bytes.heap)
                        + pass.note))
        }
    }

    /// The passes of the controls' rows: bound, then changing state, then idle again.
    private enum ControlsPass: CaseIterable {
        case bound, changed, released

        var row: String {
            switch self {
            case .bound: Scenarios.controlsRow
            case .changed: "Control() with 2 bindings, after 4 state changes (create, bind, change)"
            case .released: "Control() with 2 bindings, after 4 state changes and releaseCaches() (create, bind, change, release)"
            }
        }

        var note: String {
            switch self {
            case .bound: ""
            case .changed: "; each control changed state 4 times (4 diffs cached)"
            case .released: "; each control changed state 4 times, then released its caches"
            }
        }
    }

    /// The memory scenario's row of controls with the goal.
    nonisolated static let controlsRow = "Control() with 2 bindings (create and bind)"
}
