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
        var diagnostics: [ResolverDiagnostic] = []
        #expect(PropertyAccess.selectStrategy(portableVariable: "1") { diagnostics.append($0) }.access == .portable)
        #expect(diagnostics.isEmpty)
        // Anything but 0 or 1 is named, and the safe choice taken.
        #expect(PropertyAccess.selectStrategy(portableVariable: "yes") { diagnostics.append($0) }.access == .portable)
        #expect(diagnostics.map(\.message) == ["STATEFULCONTROLS_PORTABLE=yes is neither 0 nor 1: this process uses the portable property access"])
    }

    @Test func theProcessUsesWhatItsEnvironmentAsks() {
        let variable = PropertyAccess.portableEnvironmentVariable
        if let value = getenv(variable).map({ String(cString: $0) }), value == "1" {
            #expect(PropertyAccess.current == .portable)
        }
        #expect(PropertyAccess.current.description == (PropertyAccess.current == .direct ? "direct" : "portable"))
    }
}
