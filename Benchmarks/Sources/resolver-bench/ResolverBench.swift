import ArgumentParser
import CBenchSupport
import CStateResolver
import Foundation
import StatefulControls

@main
struct ResolverBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resolver-bench",
        abstract: "Throughput, scaling and memory of the state resolver, side by side with the algorithms people use today.")

    @Flag(help: "A smoke run: fewer repeats, smaller tables (under 30 seconds).")
    var quick = false

    @Option(help: "Write the results as JSON to this file.")
    var json: String?

    @Option(help: "Run this scenario (repeat the option for several): \(ResolverBench.scenarioNames.joined(separator: ", ")).")
    var scenario: [String] = []

    @Option(help: "Run one loop for callgrind (make bench-ir): \(IRLoops.names.joined(separator: ", ")).")
    var irLoop: String?

    @Option(help: "Iterations of the --ir-loop.")
    var iterations = 100_000

    @Flag(help: "Print the resolve scenario's rule counts, at which the loops of the by-slot goals run (make bench-ir), and exit.")
    var listRuleCounts = false

    static let scenarioNames = [
        "resolve", "ties-custom", "state-change", "large", "insert-remove",
        "update-baseline", "form", "bindings-1000", "lint", "custom-states", "memory", "sessions",
    ]

    func validate() throws {
        for scenario in scenario where !Self.scenarioNames.contains(scenario) {
            throw ValidationError("unknown scenario \(scenario); choose one of \(Self.scenarioNames.joined(separator: ", "))")
        }
        if let irLoop, !IRLoops.names.contains(irLoop) {
            throw ValidationError("unknown loop \(irLoop); choose one of \(IRLoops.names.joined(separator: ", "))")
        }
    }

    func run() throws {
        if listRuleCounts {
            print(Scenarios.resolveRuleCounts.map(String.init).joined(separator: " "))
            return
        }
        checkHeapCounter()
        if let irLoop, EndToEndIR.names.contains(irLoop) {
            try MainActor.assumeIsolated { try EndToEndIR.run(irLoop, iterations: iterations) }
            return
        }
        if let irLoop {
            IRLoops.run(irLoop, iterations: iterations)
            return
        }
        try MainActor.assumeIsolated { try runScenarios() }
    }

    @MainActor
    private func runScenarios() throws {
        let machine = Machine.current()
        print(
            "resolver-bench — \(machine.cpu), \(machine.cores) cores, \(machine.os), \(machine.judy), \(machine.build) build, \(PropertyAccess.current) property access"
        )
        print(
            "mode: \(quick ? "quick" : "full"); ns/op median and p99 over \(quick ? Budget.quick.repeats : Budget.full.repeats) repeats\n")
        let report = Report(budget: quick ? .quick : .full)
        let scenarios = Scenarios(report: report, quick: quick)
        let runs: [(String, () throws -> Void)] = [
            ("resolve", scenarios.resolveByRuleCount), ("ties-custom", scenarios.tiesAndCustomPredicate),
            ("state-change", scenarios.stateChanges), ("large", scenarios.largeTables),
            ("insert-remove", scenarios.insertAndRemove),
            ("update-baseline", scenarios.updateBaseline), ("form", scenarios.form),
            ("bindings-1000", scenarios.bindings1000), ("lint", scenarios.lint),
            ("custom-states", scenarios.customStates), ("memory", scenarios.memory),
            ("sessions", { try measureSessions(scenarios, into: report) }),
        ]
        for (name, body) in runs where scenario.isEmpty || scenario.contains(name) { try body() }
        try measurePortableEndToEnd(into: report)
        FileHandle.standardError.write(Data("\n".utf8))
        report.computeRatios(\.ratioToResolver) {
            $0.implementation.hasPrefix("resolver (warm)") || $0.implementation == "resolver diff (warm)"
        }
        report.computeRatios(\.ratioToHandWritten, reference: Scenarios.isHandWrittenReference)
        print(report.table())
        let endToEnd = Scenarios.endToEndSummary(report.results)
        if !endToEnd.isEmpty { print("\n" + endToEnd) }
        print("\n" + Goals(results: report.results).summary())
        if let json {
            struct Output: Encodable { let machine: Machine; let date: String; let mode: String; let access: String; let results: [Result] }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(
                Output(
                    machine: machine, date: ISO8601DateFormatter().string(from: Date()), mode: quick ? "quick" : "full",
                    access: "\(PropertyAccess.current)",
                    results: report.results)
            )
            .write(to: URL(fileURLWithPath: json))
            print("\nwrote \(json)")
        }
    }
}

extension ResolverBench {
    /// Set in the environment of a child run (see ``runInChild(_:environment:)``).
    static let childVariable = "RESOLVER_BENCH_CHILD"

    /// Runs `scenarios` in a child process of this benchmark, with `environment` added to this
    /// one's, and returns its property access and its results. For what needs a process of its
    /// own: another property access (decided at a process's start), or custom states of its own
    /// (the application range is process-wide, and the custom-states scenario takes all of it).
    func runInChild(_ scenarios: [String], environment: [String: String]) throws -> (access: String, results: [Result]) {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("resolver-bench-child-\(getpid()).json")
        defer { try? FileManager.default.removeItem(at: output) }
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        child.arguments = (quick ? ["--quick"] : []) + scenarios.flatMap { ["--scenario", $0] } + ["--json", output.path]
        child.environment = ProcessInfo.processInfo.environment.merging(environment.merging([Self.childVariable: "1"]) { $1 }) { $1 }
        child.standardOutput = FileHandle.nullDevice
        try child.run()
        child.waitUntilExit()
        guard child.terminationStatus == 0 else {
            fatalError("resolver-bench: the child run of \(scenarios.joined(separator: ", ")) exited with \(child.terminationStatus)")
        }
        struct Output: Decodable { let access: String; let results: [Result] }
        let run = try JSONDecoder().decode(Output.self, from: Data(contentsOf: output))
        return (run.access, run.results)
    }

    /// The sessions scenario, in a child process (the web scene registers a custom state of
    /// its own), unless this is that child.
    @MainActor
    func measureSessions(_ scenarios: Scenarios, into report: Report) throws {
        guard ProcessInfo.processInfo.environment[Self.childVariable] == nil else { return scenarios.sessions() }
        for result in try runInChild(["sessions"], environment: [:]).results { report.record(result) }
    }

    /// The end-to-end scenarios again with the portable property access, side by side with the
    /// direct one: a process uses one access (decided at its start), so they run in a child
    /// process of this benchmark with STATEFULCONTROLS_PORTABLE=1; its Control rows join this
    /// report, named "(portable access)", and are compared with this run's hand-written ones.
    @MainActor
    func measurePortableEndToEnd(into report: Report) throws {
        let scenarios = Scenarios.endToEndScenarios.filter { scenario.isEmpty || scenario.contains($0) }
        guard PropertyAccess.current == .direct, !scenarios.isEmpty else { return }
        let portable = try runInChild(scenarios, environment: [PropertyAccess.portableEnvironmentVariable: "1"])
        guard portable.access == "\(PropertyAccess.portable)" else {
            fatalError("resolver-bench: the child ran with the \(portable.access) access")
        }
        for var result in portable.results where result.implementation.hasPrefix("Control") {
            result.implementation += " (portable access)"
            result.ratioToHandWritten = nil
            report.record(result)
        }
    }
}

/// The performance goals of the project, checked against what this run measured.
struct Goals {
    let results: [Result]

    private func median(_ scenario: String, _ implementation: String, _ params: [String: Param]) -> Double? {
        results.first { $0.scenario == scenario && $0.implementation == implementation && $0.params == params }?.nsPerOpMedian
    }

    func summary() -> String {
        var lines = ["Goals (measured in this run):"]
        func check(_ name: String, _ value: Double?, _ target: String, _ pass: (Double) -> Bool) {
            guard let value else { return lines.append("  - \(name): not measured in this run") }
            lines.append("  - \(name): \(String(format: "%.2f", value)) (goal \(target)) \(pass(value) ? "MET" : "MISSED")")
        }
        let r16: [String: Param] = ["rules": .int(16)]
        let original16 = median("resolve", "original (filter + max)", r16)
        check(
            "warm resolve speed-up over the original at R=16",
            original16.flatMap { o in median("resolve", "resolver (warm)", r16).map { o / $0 } }, ">= 20x"
        ) { $0 >= 20 }
        check(
            "cold resolve speed-up over the original at R=16",
            original16.flatMap { o in median("resolve", "resolver (cold)", r16).map { o / $0 } }, ">= 5x"
        ) { $0 >= 5 }
        let warm4 = median("resolve", "resolver (warm)", ["rules": .int(4)])
        let warm256 = median("resolve", "resolver (warm)", ["rules": .int(256)])
        check("warm resolve growth from R=4 to R=256", warm4.flatMap { w4 in warm256.map { $0 / w4 } }, "< 2x") { $0 < 2 }
        for implementation in ["resolver diff (warm)", "Control.isSelected toggle (end to end)"] {
            let one = median("state-change", implementation, ["bindings": .int(10_000), "changing_percent": .int(1)])
            let all = median("state-change", implementation, ["bindings": .int(10_000), "changing_percent": .int(100)])
            check("\(implementation): 1% / 100% changing at 10,000 bindings", one.flatMap { o in all.map { o / $0 } }, "< 0.10") {
                $0 < 0.10
            }
        }
        let ruleCounts = Scenarios.resolveRuleCounts
        func worst(_ ratio: (Int) -> Double?) -> Double? {
            let ratios = ruleCounts.compactMap(ratio)
            return ratios.count == ruleCounts.count ? ratios.max() : nil
        }
        func resolveMedian(_ implementation: String, _ rules: Int) -> Double? { median("resolve", implementation, ["rules": .int(rules)]) }
        check(
            "warm resolve by slot / precomputed table, worst R of 1...256",
            worst { r in resolveMedian("resolver (warm, by slot)", r).flatMap { s in resolveMedian("precomputed table", r).map { s / $0 } }
            }, "<= 2x"
        ) { $0 <= 2 }
        check(
            "warm resolve by slot / android first match, worst R of 1...256",
            worst { r in
                resolveMedian("resolver (warm, by slot)", r).flatMap { s in resolveMedian("android (first match)", r).map { s / $0 } }
            }, "<= 1"
        ) { $0 <= 1 }
        let large = results.first {
            $0.scenario == "large" && $0.implementation == "resolver build (csr_set)" && $0.params["rules"] == .int(1_048_576)
        }
        check("bytes per rule at 1M rules (C table)", large?.bytesPerRule, "< 64") { $0 < 64 }
        let lint = median("lint", "Control.lintRules() (end to end)", ["bindings": .int(1000), "rules": .int(4000), "states": .int(64)])
        check("Control.lintRules(), 1,000 bindings x 4 rules over 64 states (ms)", lint.map { $0 / 1e6 }, "< 10") { $0 < 10 }
        let extendedResolve = median("custom-states", "resolver (warm)", ["rules": .int(16), "custom_bits": .string("extended")])
        let uikitResolve = median("custom-states", "resolver (warm)", ["rules": .int(16), "custom_bits": .string("application")])
        check(
            "warm resolve, custom bits in the extended range / in UIKit's", extendedResolve.flatMap { e in uikitResolve.map { e / $0 } },
            "<= 1.1"
        ) { $0 <= 1.1 }
        func toggle(_ registration: String, _ count: Int, _ range: String) -> Double? {
            median(
                "custom-states", "Control custom-state toggle, \(registration) (end to end)",
                ["custom_states": .int(count), "range": .string(range)])
        }
        func ratio(_ registration: String, _ count: Int, _ range: String) -> Double? {
            toggle(registration, count, range).flatMap { t in toggle(registration, 8, "application").map { t / $0 } }
        }
        check("custom-state change end to end on factors, 8 extended states / 8 UIKit states", ratio("factors", 8, "extended"), "<= 1.1") {
            $0 <= 1.1
        }
        check("custom-state change end to end on factors, 40 states / 8", ratio("factors", 40, "both"), "<= 1.1") { $0 <= 1.1 }
        lines.append(
            "  - custom-state change end to end by predicates, 40 states / 8: \(ratio("predicates", 40, "both").map { String(format: "%.2f", $0) } ?? "not measured") (every predicate runs on every change: no goal)"
        )
        let buttonParams: [String: Param] = ["factors": .int(3), "bound_values": .int(6), "cycle": .string("8 factor changes")]
        let handButton = median("update-baseline", "hand-written (changed only)", buttonParams)
        let button = median("update-baseline", "Control (setValue bindings)", buttonParams)
        check(
            "button state change / hand-written (wall; make bench-ir checks instructions)",
            button.flatMap { b in handButton.map { b / $0 } }, "<= 1.0x"
        ) {
            $0 <= 1
        }
        let formRatio = results.first { $0.scenario == "form" && $0.implementation == "Control (custom state + bound isEnabled)" }?
            .ratioToHandWritten
        check("form field flip / hand-written (wall; make bench-ir checks instructions)", formRatio, "<= 1.5x") { $0 <= 1.5 }
        let portableButton = results.first {
            $0.scenario == "update-baseline" && $0.implementation == "Control (setValue bindings) (portable access)"
        }
        check(
            "button state change, portable access / hand-written (wall; make bench-ir checks instructions)",
            portableButton.flatMap { p in handButton.map { p.nsPerOpMedian / $0 } }, "<= 3x"
        ) { $0 <= 3 }
        check("button state change, portable access: heap allocations per change", portableButton?.heapAllocationsPerOp, "0") { $0 == 0 }
        let million: [String: Param] = ["bindings": .int(1_000_000), "rules_per_binding": .int(1)]
        let bind = results.first {
            $0.scenario == "memory" && $0.implementation == "Control.setValue, one control (bind)" && $0.params == million
        }
        check("bytes per binding, 1,000,000 bindings on one control (resident set)", bind?.bytesPerBinding, "<= 200") { $0 <= 200 }
        check("setValue, 1,000,000 bindings on one control (ns per call)", bind?.nsPerOpMedian, "<= 1000") { $0 <= 1000 }
        check(
            "removeAllValues() of 1,000,000 bindings (s)", median("memory", "Control.removeAllValues()", million).map { $0 / 1e9 }, "<= 0.3"
        ) {
            $0 <= 0.3
        }
        let controls = results.first { $0.scenario == "memory" && $0.implementation == Scenarios.controlsRow }
        check("bytes per control with 2 bindings (resident set)", controls?.bytesPerControl, "<= 1024") { $0 <= 1024 }
        if let held = results.first(where: { $0.scenario == "sessions" && $0.bytesPerSession != nil }),
            let cycle = results.first(where: { $0.scenario == "sessions" && $0.bytesPerSession == nil }), let bytes = held.bytesPerSession
        {
            lines.append(
                String(
                    format:
                        "  - web front end: %.1f KB per session held, %.0f µs to open, play and close one: %.0f sessions per GiB, %.0f per second per core (no goal: the capacity, measured)",
                    bytes / 1024, cycle.nsPerOpMedian / 1000, Double(1 << 30) / bytes, 1e9 / cycle.nsPerOpMedian))
        }
        let allocations = results.filter { $0.implementation == "resolver (warm)" }.compactMap(\.allocationsPerOp).max()
        check("allocations per warm resolve (JudyMalloc calls)", allocations, "0") { $0 == 0 }
        return lines.joined(separator: "\n")
    }
}

/// Loops run alone under callgrind, which counts instructions only inside bench_ir_region.
enum IRLoops {
    /// The loops counted at every rule count of the `resolve` scenario (`android-1` …
    /// `android-256`), for the by-slot goals, which hold at every rule count; the others resolve
    /// 16 rules.
    static let byRuleCount = ["warm-resolve-slot", "precomputed", "android"]

    static let names =
        [
            "warm-resolve-16", "warm-resolve-slot-16", "precomputed-16", "cold-resolve-16", "cold-released-resolve-16", "original-16",
            "android-16", "flutter-16",
            "state-change-10000-1pct", "state-change-10000-100pct", "control-toggle-1000",
        ] + byRuleCount.flatMap { loop in Scenarios.resolveRuleCounts.filter { $0 != 16 }.map { "\(loop)-\($0)" } } + EndToEndIR.names

    /// A loop of ``byRuleCount`` and its rule count, from its name (`android-64`); nil for the others.
    static func loopByRuleCount(_ name: String) -> (loop: String, rules: Int)? {
        guard let dash = name.lastIndex(of: "-"), let rules = Int(name[name.index(after: dash)...]),
            byRuleCount.contains(String(name[..<dash])), Scenarios.resolveRuleCounts.contains(rules)
        else { return nil }
        return (String(name[..<dash]), rules)
    }

    final class Context {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    static func run(_ name: String, iterations requested: Int) {
        // A toggle writes 1,000 values: a thousandth of the iterations keeps callgrind short.
        let iterations = name == "control-toggle-1000" ? max(1, requested / 1000) : requested
        // The resolve scenario's rules at that count (its seed is the count).
        let (loop, ruleCount) = loopByRuleCount(name) ?? (name, 16)
        let rules = makeRules(ruleCount, seed: UInt64(ruleCount))
        let states = makeStates(16, seed: 99)
        let table = Table()
        for rule in rules { table.set(1, 1, rule) }
        for state in states { consume(UInt64(table.resolve(1, 1, state))) }
        let body: () -> Void
        switch loop {
        case "warm-resolve-16":
            body = { for i in 0..<iterations { consume(UInt64(table.resolve(1, 1, states[i & 15]))) } }
        case "warm-resolve-slot":
            let slot = table.slot(1, 1)
            // Warm by slot too: the first pass compiles the pair (its states repeat).
            for state in states { consume(UInt64(table.resolve(slot: slot, state))) }
            body = { for i in 0..<iterations { consume(UInt64(table.resolve(slot: slot, states[i & 15]))) } }
        case "precomputed":
            let precomputed = PrecomputedTable(rules)
            body = { for i in 0..<iterations { consume(UInt64(precomputed.value(for: states[i & 15]))) } }
        case "cold-resolve-16":
            body = { for i in 0..<iterations { csr_clear_cache(table.pointer); consume(UInt64(table.resolve(1, 1, states[i & 15]))) } }
        case "cold-released-resolve-16":
            body = { for i in 0..<iterations { csr_release_cache(table.pointer); consume(UInt64(table.resolve(1, 1, states[i & 15]))) } }
        case "original-16":
            let store = OriginalStore(rules)
            body = { for i in 0..<iterations { consume(UInt64(store.value(for: states[i & 15]) ?? 0)) } }
        case "android":
            let list = AndroidStateList(rules)
            body = { for i in 0..<iterations { consume(UInt64(list.value(for: states[i & 15]) ?? 0)) } }
        case "control-toggle-1000":
            let (control, nodes) = MainActor.assumeIsolated { () -> (Control, [Node]) in
                let control = Control()
                let nodes = (0..<1000).map { _ in Node() }
                for node in nodes { control.setValue(1, for: \.value, of: node, forAllStatesContained: .selected) }
                control.isSelected.toggle()
                control.isSelected.toggle()
                return (control, nodes)
            }
            body = {
                MainActor.assumeIsolated { for _ in 0..<iterations { control.isSelected.toggle() } }
                withExtendedLifetime(nodes) {}
            }
        case "flutter-16":
            let chain = FlutterChain(rules)
            body = { for i in 0..<iterations { consume(UInt64(chain.value(for: states[i & 15]) ?? 0)) } }
        default:
            let (big, _) = makeToggleTable(bindings: 10_000, percent: name.hasSuffix("-1pct") ? 1 : 100)
            let toggle: (UInt64, UInt64) = (0, 1 << 2)
            big.diffToggle(0, toggle)
            big.diffToggle(1, toggle)
            body = { for i in 0..<iterations { big.diffToggle(i, toggle) } }
        }
        let context = Context(body)
        bench_ir_region({ Unmanaged<Context>.fromOpaque($0!).takeUnretainedValue().body() }, Unmanaged.passUnretained(context).toOpaque())
        withExtendedLifetime(table) {}
        print("iterations: \(iterations)")
    }
}
