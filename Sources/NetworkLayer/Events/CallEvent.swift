import Foundation

/// One step of a call as it happens, OkHttp's EventListener events: its start, the connection's
/// phases, the response's head and body, its end.
///
/// Register for them with ``NetworkManager/addEventHandler(bufferLimit:_:)`` or
/// ``NetworkManager/events(bufferLimit:)``. `requestID` is the id the log gives the same call
/// (``NetworkLogEntry/requestID``, `[NetworkLayer #12]`): one id for the call's retries and
/// redirects. `time` is monotonic; within one call the times never decrease.
///
/// ```swift
/// let subscription = Net.addEventHandler { event in
///     print(event.requestID, event.kind.name, event.time)
/// }
/// defer { subscription.cancel() }
/// ```
public struct CallEvent: Sendable {
    /// The call's id, the log's `requestID` for the same call.
    public let requestID: Int
    /// What happened.
    public let kind: Kind
    /// When it happened; for the connection's phases, when libcurl measured it.
    public let time: ContinuousClock.Instant

    /// What happened. A call emits `callStart`, then for each hop on the wire the connection's
    /// phases, then `callEnd` or `callFailed`. A reused connection has no DNS, connect or TLS
    /// events; a plain `http` one no TLS events. A mocked call or an answer from the cache, which
    /// reach no connection, emit only `callStart` and `callEnd` or `callFailed`.
    public enum Kind: Sendable {
        /// The call starts, before its first attempt is prepared.
        case callStart
        /// The call waits for its turn under a limit.
        case queued
        case dnsStart
        case dnsEnd
        case connectStart
        case connectEnd
        case tlsStart
        case tlsEnd
        /// The hop has its connection: a new one, or one kept from an earlier request.
        case connectionAcquired(reused: Bool)
        /// The request is handed to its connection (libcurl writes it right after).
        case requestHeadersSent
        /// The final response's head arrived (not an interim `1xx`).
        case responseHeadersReceived(status: Int)
        /// The hop's body arrived whole: `bytes` as delivered (decoded). For a stream, when it ends.
        case responseBodyEnd(bytes: Int64)
        /// The call returned its response (a stream's: its head, before `responseBodyEnd`).
        case callEnd
        /// The call failed with this error, its texts scrubbed of the request's secrets.
        case callFailed(NetworkError)

        /// The case's name, as written here (`"connectionAcquired"`): for spans and logs.
        public var name: String {
            switch self {
            case .callStart: "callStart"
            case .queued: "queued"
            case .dnsStart: "dnsStart"
            case .dnsEnd: "dnsEnd"
            case .connectStart: "connectStart"
            case .connectEnd: "connectEnd"
            case .tlsStart: "tlsStart"
            case .tlsEnd: "tlsEnd"
            case .connectionAcquired: "connectionAcquired"
            case .requestHeadersSent: "requestHeadersSent"
            case .responseHeadersReceived: "responseHeadersReceived"
            case .responseBodyEnd: "responseBodyEnd"
            case .callEnd: "callEnd"
            case .callFailed: "callFailed"
            }
        }
    }
}
