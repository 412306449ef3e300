import Foundation

/// What a streaming response type reads its body as; decides the mock file's extension and how
/// mock mode paces the body.
enum StreamKind: Sendable, Equatable {
    /// ``ByteStream``: chunks (paced by lines in mock mode).
    case bytes
    /// ``EventStream``: `text/event-stream` (paced by events).
    case events
    /// ``JSONLines``: NDJSON (paced by lines).
    case jsonLines
    /// ``WebSocket``: a connection, not a body (its mock file is a script, `.ws`).
    case webSocket

    init?(for type: Any.Type) {
        guard let streaming = type as? any StreamingResponse.Type else { return nil }
        self = streaming.streamKind
    }

    /// The mock file extension: `.sse`, `.ndjson`; a byte stream takes any file (`.bin` when recorded).
    var fileExtension: String {
        switch self {
        case .bytes: "bin"
        case .events: "sse"
        case .jsonLines: "ndjson"
        case .webSocket: "ws"
        }
    }

    func items(_ count: Int) -> String {
        switch self {
        case .bytes: count == 1 ? "1 chunk" : "\(count) chunks"
        case .events: count == 1 ? "1 event" : "\(count) events"
        case .jsonLines: count == 1 ? "1 line" : "\(count) lines"
        case .webSocket: count == 1 ? "1 message" : "\(count) messages"
        }
    }
}

/// A response type whose body is read while it arrives: the manager returns it once the
/// headers are validated, and the body flows through its ``StreamBody``.
protocol StreamingResponse: Sendable {
    static var streamKind: StreamKind { get }
    /// The stream over `response`'s body: its ``HTTPResponse/stream`` when it has one, else its
    /// complete `body` (a mocked or hand-made response).
    init(streaming response: HTTPResponse)
}

extension HTTPResponse {
    /// The response as a stream's `response` shows it: without the body stream.
    var head: HTTPResponse {
        var head = self
        head.stream = nil
        return head
    }

    /// The body to stream: the live one, or a finished stream over the complete `body`.
    var streamBody: StreamBody {
        if let stream { return stream }
        let buffer = StreamBuffer()
        buffer.append(body)
        buffer.finish(nil)
        return StreamBody(buffer: buffer, origin: origin)
    }
}
