import Foundation

/// How a response's body ended: for a middleware that times or traces a whole call, a stream included.
public struct ResponseBodyEnd: Sendable {
    /// The bytes of the body received, after decompression (a download's: its file's size).
    public let byteCount: Int64
    /// `nil` when the body arrived whole; the failure, or ``NetworkError/cancelled(_:)`` when the
    /// stream was cancelled or dropped before its end.
    public let error: NetworkError?

    public init(byteCount: Int64, error: NetworkError?) {
        self.byteCount = byteCount
        self.error = error
    }
}

extension HTTPResponse {
    /// Whether the body is still arriving: a ``ByteStream``, ``EventStream`` or ``JSONLines`` response.
    public var isStreaming: Bool { stream != nil }

    /// Calls `handler` once, when the body has ended: at once for a complete response, when the
    /// stream ends, fails or is cancelled for a streamed one (an ``EventStream`` that reconnects:
    /// when its last body does). It may run on any thread; keep it quick.
    public func onBodyEnd(_ handler: @escaping @Sendable (ResponseBodyEnd) -> Void) {
        guard let stream else {
            handler(ResponseBodyEnd(byteCount: downloadedFile?.size ?? Int64(body.count), error: nil))
            return
        }
        stream.onEnd(handler)
    }

    /// This response as the answer to `request`, when it came from elsewhere: made by a middleware
    /// by hand (``init(statusCode:headers:body:url:isMocked:)``) or another call's (request
    /// coalescing). It takes `request`'s validation and decoding settings and its redaction; its
    /// URL stays the one it names.
    consuming func answering(_ request: PreparedRequest) -> HTTPResponse {
        if let origin = origin.request, origin.resolved === request.resolved { return self }
        let url = self.url
        let origin = url == request.url ? RequestOrigin(of: request) : RequestOrigin(method: request.method, url: url, redactor: request.redactor)
        var answer = HTTPResponse(statusCode: statusCode, headers: headerBlock, body: body, isMocked: isMocked, origin: origin,
                                  expectations: request.resolved.expectations, metrics: metrics, redirectLocation: redirectLocation)
        answer.downloadedFile = downloadedFile
        answer.cacheStatus = cacheStatus
        answer.stream = stream
        return answer
    }
}
