#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value guarded by a POSIX mutex.
///
/// The standard library's `Synchronization.Mutex` would do, but on Linux ThreadSanitizer does
/// not see it lock (a correct two-thread program using it is reported as a race), and this
/// library's process-wide registries are used from any thread: a pthread mutex is one TSan
/// understands.
package final class Locked<Value>: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var value: Value

    package init(_ value: Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, the mutex held.
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
