import Foundation

/// Why a stream's body could not be parsed, as the pure parsers report it. The stream turns it
/// into a ``NetworkError`` naming the request.
enum StreamParseFailure: Error, Equatable {
    /// A line grew past its limit without a terminator.
    case lineTooLong(limit: Int)
    /// An event's `data` lines together grew past the limit before a blank line dispatched it.
    case eventTooLarge(limit: Int)
    /// NDJSON: the line at `line` (1-based) does not decode; `reason` says where and what.
    case undecodableLine(line: Int, type: String, reason: String)

    /// A sentence for the error's reason.
    var reason: String {
        switch self {
        case .lineTooLong(let limit):
            "a line of the body is longer than \(limit) bytes without a line end"
        case .eventTooLarge(let limit):
            "an event's data is larger than \(limit) bytes"
        case .undecodableLine(let line, let type, let reason):
            "line \(line) of the NDJSON body could not be decoded as \(type): \(reason)"
        }
    }

    /// The error a parse failure ends the stream with: `.serialization` for a value that does not
    /// decode, `.transport` for a body that breaks the limits.
    func error(of body: StreamBody) -> NetworkError {
        let context = NetworkError.Context(request: body.origin.description, reason: reason)
        switch self {
        case .undecodableLine: return .serialization(context)
        case .lineTooLong, .eventTooLarge: return .transport(context)
        }
    }
}
