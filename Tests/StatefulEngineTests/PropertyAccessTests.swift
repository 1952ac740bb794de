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
}
