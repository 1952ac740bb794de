import Testing
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
@testable import StatefulEngine

/// The choice of property access, in every build (see DirectAccessTests for the direct one's
/// internals).
@Suite("The property access of a process")
struct PropertyAccessTests {
    @Test func theEnvironmentVariableForcesThePortableAccess() {
        let forced = PropertyAccess.selectStrategy(portableVariable: "1")
        #expect(forced.0.access == .portable && forced.1 == nil)
        // Anything but 0 or 1 is named, and the safe choice taken.
        let unclear = PropertyAccess.selectStrategy(portableVariable: "yes")
        #expect(unclear.0.access == .portable)
        #expect(unclear.1?.message == "STATEFULCONTROLS_PORTABLE=yes is neither 0 nor 1: this process uses the portable property access")
    }

    @Test func theProcessUsesWhatItsEnvironmentAsks() {
        let variable = PropertyAccess.portableEnvironmentVariable
        if let value = getenv(variable).map({ String(cString: $0) }), value == "1" {
            #expect(PropertyAccess.current == .portable)
        }
        #expect(PropertyAccess.current.description == (PropertyAccess.current == .direct ? "direct" : "portable"))
    }

    final class Holder { var value = 0 }

    /// Holds a modify access to `value` while `body` runs: not inlined, and writing after
    /// `body`, so that the optimiser keeps the access around the call.
    @inline(never)
    static func modifying(_ value: inout Int, _ body: () throws -> Void) rethrows {
        try body()
        value &+= 1
    }

    /// The one check in which the two differ (see `PropertyAccess`): a bound value written while
    /// the program holds an `inout` access to its property stops the program with the portable
    /// access, as Swift does; the direct access takes no part in dynamic exclusivity
    /// enforcement, and writes under the access.
    @Test func aWriteWhileThePropertyIsInAnInoutAccess() async {
        let result = await #expect(
            processExitsWith: PropertyAccess.current == .portable ? .failure : .success, observing: [\.standardErrorContent]
        ) {
            let holder = PropertyAccessTests.Holder()
            let resolver = StateResolver()
            try resolver.setValue(1, for: \PropertyAccessTests.Holder.value, of: holder, when: .containing(.selected))
            try PropertyAccessTests.modifying(&holder.value) { try resolver.apply(.selected) }
        }
        if PropertyAccess.current == .portable {
            let standardError = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
            #expect(standardError.contains("Simultaneous accesses"))
        }
    }
}
