import SeededRandom
import CBenchSupport
import Foundation

/// Keeps results alive so the optimiser cannot drop the work that made them.
nonisolated(unsafe) var sink: UInt64 = 0

@inline(never)
func consume(_ value: UInt64) { sink &+= value }

/// Monotonic nanoseconds.
func now() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// How long and how often to measure.
struct Budget {
    var repeats: Int
    var nanosecondsPerRepeat: UInt64

    static let quick = Budget(repeats: 9, nanosecondsPerRepeat: 1_000_000)
    static let full = Budget(repeats: 41, nanosecondsPerRepeat: 5_000_000)
}

/// One measured figure.
struct Result: Codable {
    var scenario: String
    var implementation: String
    var params: [String: Param]
    var nsPerOpMedian: Double
    var nsPerOpP99: Double
    var opsPerSec: Double
    var bytesPerRule: Double?
    /// The memory scenario: bytes per binding, or per control with its bindings.
    var bytesPerBinding: Double?
    var bytesPerControl: Double?
    /// The sessions scenario: bytes per web front end session.
    var bytesPerSession: Double?
    var allocationsPerOp: Double?
    /// Heap allocations of the whole process per operation (the malloc interposer).
    var heapAllocationsPerOp: Double?
    /// Frees of the whole process per operation (the malloc interposer).
    var heapFreesPerOp: Double?
    var ratioToResolver: Double?
    /// The end-to-end scenarios: this figure over the hand-written implementation's (the one
    /// that writes only changed values) with the same scenario and params.
    var ratioToHandWritten: Double?
    var note: String?

    enum CodingKeys: String, CodingKey {
        case scenario, implementation, params, note
        case nsPerOpMedian = "ns_per_op_median", nsPerOpP99 = "ns_per_op_p99", opsPerSec = "ops_per_sec"
        case bytesPerRule = "bytes_per_rule", bytesPerBinding = "bytes_per_binding", bytesPerControl = "bytes_per_control",
            bytesPerSession = "bytes_per_session"
        case allocationsPerOp = "allocations_per_op"
        case heapAllocationsPerOp = "heap_allocations_per_op", heapFreesPerOp = "heap_frees_per_op"
        case ratioToResolver = "ratio_to_resolver", ratioToHandWritten = "ratio_to_hand_written"
    }
}

/// A parameter value: an integer or a string.
enum Param: Codable, CustomStringConvertible, Hashable {
    case int(Int), string(String)
    init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Int.self) { self = .int(value) } else { self = .string(try container.decode(String.self)) }
    }
    func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .int(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        }
    }
    var description: String {
        switch self {
        case .int(let value): String(value)
        case .string(let value): value
        }
    }
}

/// What one measurement found: ns/op samples' median and p99, JudyMalloc calls per operation,
/// and the process's heap allocations and frees per operation (the malloc interposer).
struct Measurement {
    var median: Double
    var p99: Double
    var allocations: Double
    var heapAllocations: Double
    var heapFrees: Double
}

/// Runs `body(count)` (which performs `count` operations) in repeats sized to the budget and
/// returns ns/op samples' median and p99, plus the allocations per operation.
func measure(_ budget: Budget, _ body: (Int) -> Void) -> Measurement {
    // Calibrate: grow the count until one run fills a repeat's time.
    var count = 1
    while true {
        let start = now()
        body(count)
        let elapsed = now() - start
        if elapsed >= budget.nanosecondsPerRepeat || count >= 1 << 26 { break }
        let scale = elapsed == 0 ? 16 : min(16, max(2, Int(budget.nanosecondsPerRepeat / max(elapsed, 1))))
        count *= scale
    }
    var samples: [Double] = []
    samples.reserveCapacity(budget.repeats)
    let allocationsBefore = bench_allocations()
    let heapAllocationsBefore = bench_malloc_count(), heapFreesBefore = bench_free_count()
    for _ in 0..<budget.repeats {
        let start = now()
        body(count)
        samples.append(Double(now() - start) / Double(count))
    }
    let heapAllocations = bench_malloc_count() - heapAllocationsBefore, heapFrees = bench_free_count() - heapFreesBefore
    let operations = Double(count * budget.repeats)
    let allocations = Double(bench_allocations() - allocationsBefore) / operations
    samples.sort()
    let median = samples[samples.count / 2]
    let p99 = samples[min(samples.count - 1, Int((Double(samples.count) * 0.99).rounded(.up)) - 1)]
    return Measurement(
        median: median, p99: p99, allocations: allocations,
        heapAllocations: Double(heapAllocations) / operations, heapFrees: Double(heapFrees) / operations)
}

/// A value the optimiser cannot see through (so an array handed to it is really allocated).
nonisolated(unsafe) var escaped: [Int] = []

@inline(never)
func escape(_ array: [Int]) { escaped = array }

/// Checks that the malloc interposer of CBenchSupport is the allocator the process uses: a
/// Swift array allocated and released must show in its counts. Stops the program otherwise.
func checkHeapCounter() {
    let allocationsBefore = bench_malloc_count(), freesBefore = bench_free_count()
    escape([Int](repeating: 7, count: 1000 + Int(sink & 1)))
    let allocations = bench_malloc_count() - allocationsBefore
    escape([])
    let frees = bench_free_count() - freesBefore
    guard allocations >= 1, frees >= 1 else {
        fatalError(
            "the malloc interposer in CBenchSupport is not in use: a Swift array counted \(allocations) allocations and \(frees) frees")
    }
}

/// Collects results and prints them.
@MainActor
final class Report {
    private(set) var results: [Result] = []
    let budget: Budget

    init(budget: Budget) { self.budget = budget }

    /// Measures one implementation and records it.
    @discardableResult
    func run(
        _ scenario: String, _ implementation: String, _ params: [String: Param], note: String? = nil,
        _ body: (Int) -> Void
    ) -> Result {
        let measured = measure(budget, body)
        let result = Result(
            scenario: scenario, implementation: implementation, params: params,
            nsPerOpMedian: measured.median, nsPerOpP99: measured.p99, opsPerSec: 1e9 / measured.median,
            allocationsPerOp: measured.allocations, heapAllocationsPerOp: measured.heapAllocations,
            heapFreesPerOp: measured.heapFrees, note: note)
        results.append(result)
        FileHandle.standardError.write(Data(".".utf8))
        return result
    }

    /// Records a figure measured another way (a one-off build, a memory count).
    func record(_ result: Result) { results.append(result) }

    /// Fills `ratio` of each result: its median over the median of the result with the same
    /// scenario and params that `reference` picks (the resolver's, or the hand-written one's).
    func computeRatios(_ ratio: WritableKeyPath<Result, Double?>, reference: (Result) -> Bool) {
        for index in results.indices {
            let result = results[index]
            guard
                let base = results.first(where: {
                    reference($0) && $0.scenario == result.scenario && $0.params == result.params
                })
            else { continue }
            results[index][keyPath: ratio] = result.nsPerOpMedian / base.nsPerOpMedian
        }
    }

    func table() -> String {
        var lines = [
            "| scenario | implementation | params | ns/op median | ns/op p99 | ops/s | × resolver | × hand | bytes per rule, binding, control or session | allocs/op | heap allocs/op | heap frees/op |",
            "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for r in results {
            let params = r.params.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            lines.append(
                "| \(r.scenario) | \(r.implementation) | \(params) | \(fmt(r.nsPerOpMedian)) | \(fmt(r.nsPerOpP99)) | "
                    + "\(fmtOps(r.opsPerSec)) | \(r.ratioToResolver.map { String(format: "%.2f", $0) } ?? "") | "
                    + "\(r.ratioToHandWritten.map { String(format: "%.2f", $0) } ?? "") | "
                    + "\((r.bytesPerRule ?? r.bytesPerBinding ?? r.bytesPerControl ?? r.bytesPerSession).map { String(format: "%.1f", $0) } ?? "") | "
                    + "\(r.allocationsPerOp.map { String(format: "%.3g", $0) } ?? "") | "
                    + "\(r.heapAllocationsPerOp.map(fmtCount) ?? "") | "
                    + "\(r.heapFreesPerOp.map(fmtCount) ?? "") |")
        }
        return lines.joined(separator: "\n")
    }

    private func fmt(_ ns: Double) -> String {
        ns < 10 ? String(format: "%.2f", ns) : ns < 1000 ? String(format: "%.1f", ns) : String(format: "%.0f", ns)
    }
    private func fmtCount(_ count: Double) -> String { count >= 100 ? String(format: "%.0f", count) : String(format: "%.3g", count) }
    private func fmtOps(_ ops: Double) -> String {
        ops >= 1e6 ? String(format: "%.1fM", ops / 1e6) : ops >= 1e3 ? String(format: "%.1fk", ops / 1e3) : String(format: "%.0f", ops)
    }
}

/// What the benchmark ran on.
struct Machine: Encodable {
    let cpu: String
    let cores: Int
    let os: String
    let judy: String
    let build: String

    static func current() -> Machine {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model =
            cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }?
            .split(separator: ":", maxSplits: 1).last?.trimmingCharacters(in: .whitespaces) ?? "unknown"
        let release =
            (try? String(contentsOfFile: "/etc/os-release", encoding: .utf8))?
            .split(separator: "\n").first { $0.hasPrefix("PRETTY_NAME=") }?
            .dropFirst("PRETTY_NAME=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) ?? "unknown"
        #if DEBUG
            let build = "debug (numbers are not representative; use make bench)"
        #else
            let build = "release"
        #endif
        return Machine(
            cpu: model, cores: ProcessInfo.processInfo.activeProcessorCount, os: release,
            judy: "libJudy 1.0.5 (Debian libjudy-dev)", build: build)
    }
}
