import SeededRandom
import Foundation
@testable import StatefulEngine
import Testing

/// A long run of mixed operations on one resolver, as a UI that runs for days makes them:
/// binds and unbinds, state changes over many distinct states, targets that die (and new
/// objects, often at their addresses), custom descriptors with names made up at run time.
/// Memory and time per operation must stay flat, and everything must go when everything is
/// removed.
///
/// `SOAK_OPERATIONS` sets the number of operations: 10,000 by default (the deterministic checks
/// only); `make soak` (part of `make check`) runs 2,000,000 in release and also checks that
/// memory and time per operation stay flat.
@Suite("Soak: bounded memory and time under churn")
struct SoakTests {
    final class Target {
        var number = 0
        var text = ""
        var flag = false
    }

    /// Resident memory of the process, in bytes (Linux: `/proc/self/statm`).
    static func residentBytes() -> Int {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
            let pages = statm.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    @Test func memoryAndTimePerOperationStayFlatUnderChurn() throws {
        let operations = ProcessInfo.processInfo.environment["SOAK_OPERATIONS"].flatMap(Int.init) ?? 10_000
        let measured = operations >= 1_000_000
        var rng = SplitMix64(seed: 14)
        let resolver = StateResolver()
        var targets = (0..<64).map { _ in Target() }
        let windows = 8
        let window = operations / windows
        var seconds: [Double] = [], resident: [Int] = []
        var start = Date()
        for operation in 0..<operations {
            let target = targets[Int(rng.next() % UInt64(targets.count))]
            switch rng.next() % 16 {
            case 0...4:  // bind a mask rule
                let mask = ControlState(rawValue: UInt(rng.next() & 0x3F))
                try resolver.setValue(
                    Int(rng.next() % 100), for: \.number, of: target,
                    when: .containing(mask, priority: Int32(rng.next() % 4) * 250))
            case 5:  // bind a string under a run-time name (most names are used once)
                let name = "name \(rng.next() % 4 == 0 ? 0 : operation)"
                try resolver.setValue(
                    "t\(operation % 7)", for: \.text, of: target,
                    when: .custom(name, priority: 900) { $0.rawValue & 1 == 0 })
            case 6:  // unbind what the last case bound, by name
                resolver.removeValues(for: \.text, of: target)
            case 7:
                resolver.removeValues(for: \.number, of: target)
            case 8:  // a target dies; a new object (often at its address) takes its place
                targets[Int(rng.next() % UInt64(targets.count))] = Target()
            case 9:
                try resolver.setValue(true, for: \.flag, of: target, when: .exactly(ControlState(rawValue: UInt(rng.next() & 0xFFFFF))))
            default:  // a state change over 2^20 distinct states
                try resolver.apply(ControlState(rawValue: UInt(rng.next() & 0xFFFFF)))
            }
            if measured, (operation + 1) % window == 0 {
                seconds.append(Date().timeIntervalSince(start))
                resident.append(Self.residentBytes())
                start = Date()
            }
        }
        // Everything goes when everything is removed.
        resolver.removeAllValues()
        #expect(resolver.ruleCount == 0 && resolver.bindings.isEmpty && resolver.customNameCount == 0)
        // Ids were reused: never more than the targets alive at once plus those not swept yet.
        #expect(resolver.targets.nextID < 4_096)
        guard measured else { return }
        let report = zip(seconds, resident).enumerated().map { index, sample in
            String(
                format: "window %d: %.2f µs/op, RSS %.1f MB", index + 1,
                sample.0 / Double(window) * 1e6, Double(sample.1) / 1_048_576)
        }.joined(separator: "\n")
        print("soak (\(operations) operations):\n" + report)
        // Flat: the last window against the second (the first warms the caches up). RSS may
        // grow by 16 MB or 25 % (allocator fragmentation, the cache filling up to its budget);
        // unbounded growth over 2M operations is far more. Time per operation may vary by 2×:
        // this machine's wall clock varies by 1.5× from run to run; growth with the number of
        // states or targets seen is 10× and more.
        let baseline = resident[1], last = resident[resident.count - 1]
        #expect(last <= baseline + max(16 << 20, baseline / 4), "RSS grew: \(report)")
        #expect(seconds[seconds.count - 1] <= seconds[1] * 2, "time per operation grew: \(report)")
    }
}
