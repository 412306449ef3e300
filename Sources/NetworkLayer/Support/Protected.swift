import Foundation

/// A value behind a lock: the one lock type of the library.
///
/// A `pthread_mutex_t`, not the standard library's `Mutex`: ThreadSanitizer on Linux cannot see
/// `Mutex`'s futex locking, and would report every access under it as a race, hiding real ones.
// @unchecked Sendable: `value` is only read or written between pthread_mutex_lock and unlock, and
// the mutex lives at a fixed address for the object's whole life.
package final class Protected<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    package init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        // Default attributes cannot fail to initialise a mutex on Linux.
        _ = pthread_mutex_init(mutex, nil)
    }

    deinit {
        _ = pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        _ = pthread_mutex_lock(mutex)
        defer { _ = pthread_mutex_unlock(mutex) }
        return try body(&value)
    }

    /// Runs `body` with exclusive access to the value if the lock is free now; `nil`, without
    /// waiting, when another thread holds it.
    package func withLockIfAvailable<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result? {
        guard pthread_mutex_trylock(mutex) == 0 else { return nil }
        defer { _ = pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
