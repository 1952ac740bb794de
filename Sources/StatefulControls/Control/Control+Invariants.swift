// A control's invariants, for the package's tests.

extension Control {
    /// Checks the promises its resolver's structures keep (see
    /// ``StateResolver/checkInvariants()``): nil when all hold, else the first one broken. A
    /// debugging aid for tests, never called by the library.
    package func checkInvariants() -> String? { resolver.checkInvariants() }
}
