import Foundation

extension ContiguousBytes {
    /// `withUnsafeBytes` for a body that throws a typed error (the Foundation method rethrows
    /// `any Error`, which a `throws(E)` caller cannot pass on).
    func withUnsafeBytes<Result, Failure: Error>(typed body: (UnsafeRawBufferPointer) throws(Failure) -> Result) throws(Failure) -> Result {
        try withUnsafeBytes { bytes in Swift.Result { () throws(Failure) in try body(bytes) } }.get()
    }
}
