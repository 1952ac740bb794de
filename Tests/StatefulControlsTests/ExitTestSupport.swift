import Foundation

/// In a child process of an exit test: stops the process with `message` on standard error,
/// which the test reads, when `condition` is false.
func checkInChild(_ condition: Bool, _ message: @autoclosure () -> String) {
    guard !condition else { return }
    FileHandle.standardError.write(Data("check failed: \(message())\n".utf8))
    exit(1)
}
