import Foundation

/// Where a request's progress goes.
struct ProgressReporter: Sendable {
    let report: @Sendable (TransferProgress) -> Void
    /// Ends a progress stream, once the request is over.
    let finish: (@Sendable () -> Void)?
}
