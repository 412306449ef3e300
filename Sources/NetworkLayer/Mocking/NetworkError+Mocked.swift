import Foundation

extension NetworkError {
    /// The same error, marked as mocked: its reason ends with where the mock came from (`source`,
    /// e.g. "the sidecar /path/Down.meta.json"), and it names `request` when it named none.
    /// Cases without a context (`generic`, `customUser`, `mockNotFound`) are returned as they are.
    func mocked(from source: String, request: String) -> NetworkError {
        updatingContext { context in
            let mark = "a mocked failure, from \(source)"
            context.reason = context.reason.map { "\($0) (\(mark))" } ?? mark
            if context.request == nil { context.request = request }
        }
    }
}
