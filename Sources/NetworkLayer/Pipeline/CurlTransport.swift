internal import CNetworkLayerCurl
import Foundation

/// Sends one hop of a request through the shared ``CurlEngine``, as its ``TransferPlan`` says: the
/// chain's ``Transport`` on the backend's side of the boundary, where the prepared request becomes
/// the plan the backend owns.
/// Redirects, retries and where a download ends up are the pipeline's: a 3xx is returned like
/// any response, with where it points. A streaming request returns at the response's headers,
/// its body still arriving through ``HTTPResponse/stream``.
struct CurlTransport: Transport {
    nonisolated(nonsending) func send(_ request: PreparedRequest, download: PendingDownload?) async throws(NetworkError) -> HTTPResponse {
        let plan = TransferPlan(request)
        if plan.webSocket != nil { return try await WebSocketConnection.open(plan) }
        let engine = try CurlEngine.shared.get()
        // libcurl reads nothing of a body declared empty: its sequence is checked to be empty first.
        if case .stream(let upload)? = plan.body, upload.length == 0 { try await upload.confirmEmpty(plan.redactedDescription) }
        let transfer = try engine.makeTransfer(for: plan, download: download)
        let started = request.resolved.traffic == nil ? nil : Date()
        // The result crosses from the engine thread to this task through the concurrency runtime,
        // which ThreadSanitizer cannot see into: the release/acquire pair states the ordering
        // that resuming the continuation provides (both are no-ops outside TSan builds).
        let result = await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Result<HTTPResponse, NetworkError>, Never>) in
                engine.start(transfer) { (result: consuming Result<HTTPResponse, NetworkError>) in
                    nl_tsan_release(Unmanaged.passUnretained(transfer).toOpaque())
                    continuation.resume(returning: result)
                }
            }
        } onCancel: {
            engine.cancel(transfer)
        }
        nl_tsan_acquire(Unmanaged.passUnretained(transfer).toOpaque())
        // A cancelled download's part is on disk before anyone measures it for resume data.
        transfer.flushDownload()
        if let traffic = request.resolved.traffic, let started {
            switch result {
            case .success(let response): traffic.record(transfer.plan, started: started, response: response, error: nil, toFile: download != nil)
            case .failure(let error): traffic.record(transfer.plan, started: started, response: nil, error: error, toFile: download != nil)
            }
        }
        switch consume result {  // moved out, not copied as `get()` would
        case .success(let response): return response
        case .failure(let error): throw error
        }
    }
}
