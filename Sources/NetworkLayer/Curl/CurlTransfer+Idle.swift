internal import CNetworkLayerCurl
import Foundation

// The idle timeout (``Timeouts/idle``) of a complete response, and the timeout of a transfer that
// waits for a connection under ``ConnectionLimits``. Engine thread, but for `configureIdleTimeout`.
extension CurlTransfer {
    /// The callbacks the idle timeout needs: the request's start (`CURLOPT_PREREQFUNCTION`: a
    /// connection is ready, new or reused, and the request goes now) arms it; with a body, the
    /// bytes sent (the progress callback) move it on, so a slow upload is not silence.
    func configureIdleTimeout(sendsBody: Bool, context: UnsafeMutableRawPointer) throws(NetworkError) {
        try handle.setPrerequestCallback(curlRequestStarts)
        guard sendsBody, progress == nil else { return }  // with progress, the callback is set anyway
        try handle.set(CURLOPT_NOPROGRESS, false)
        try handle.setProgressCallback(curlReportProgress)
        try handle.set(CURLOPT_XFERINFODATA, pointer: context)
    }

    /// The request has a connection and is about to be sent: silence counts from now.
    func requestStarts() {
        handle.requestsSent.pointee += 1
        restartIdleTimeout()
        if events != nil { emitConnectionEvents() }
    }

    /// The failure of a transfer the engine ended at its timeout: one that waited for a free
    /// connection all along says so; one libcurl was merely late to end is libcurl's timeout.
    func waitedForConnectionError(limits: ConnectionLimits) -> NetworkError {
        let started = (handle.offset(CURLINFO_PRETRANSFER_TIME_T) ?? 0) > 0 || (handle.offset(CURLINFO_CONNECT_TIME_T) ?? 0) > 0
        if started, case .failure(let error) = result(for: CURLE_OPERATION_TIMEDOUT) { return error }
        var bounds: [String] = []
        if let perHost = limits.perHost { bounds.append("\(perHost) per host") }
        if let total = limits.total { bounds.append("\(total) in all") }
        return .timeOut(.init(request: plan.redactedDescription,
                              reason: "no connection became free within the timeout of \(plan.statedTimeout.compactText) s "
                                + "(the connection limits allow \(bounds.joined(separator: " and ")), all in use)"))
    }
}

let curlRequestStarts: curl_prereq_callback = { context, _, _, _, _ in
    guard let context else { return Int32(CURL_PREREQFUNC_OK) }
    Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().requestStarts()
    return Int32(CURL_PREREQFUNC_OK)
}
