// A control's invariants, for the package's tests.

extension Control {
    /// Checks the promises of the control's parts (``changesPlainly`` says what they say) and
    /// of its resolver's structures (see ``StateResolver/checkInvariants()``): nil when all
    /// hold, else the first one broken. A debugging aid for tests, never called by the library.
    package func checkInvariants() -> String? {
        guard changesPlainly == partsAllowPlainChanges else {
            return "changesPlainly is \(changesPlainly), but the control's parts say \(partsAllowPlainChanges)"
        }
        return resolver.checkInvariants()
    }
}
