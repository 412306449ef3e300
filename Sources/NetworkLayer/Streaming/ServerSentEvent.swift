import Foundation

/// One event of a `text/event-stream` body, as an ``EventStream`` delivers it; its fields follow
/// the WHATWG HTML standard's event-stream interpretation.
public struct ServerSentEvent: Sendable, Equatable {
    /// The last event ID when the event was dispatched (sticky across events); `nil` when none
    /// was ever set, or an empty `id:` line reset it.
    public var id: String?
    /// The event type from the `event:` line; `nil` means the default type, "message".
    public var event: String?
    /// The `data:` lines of the event joined with `\n` (an event without data is never dispatched).
    public var data: String
    /// The reconnection time from a `retry:` line (digits only, in milliseconds) received since
    /// the previous event; `nil` when none was sent.
    public var retry: Duration?

    /// The decoder of the request the event came from (its `jsonDecoder`, else the provider's);
    /// `nil` for an event made in code. Not part of equality.
    var decoder: JSONDecoder?
    /// Whether FastJSON may decode the data: the request's manager and provider choice. Not part of equality.
    var usesFastJSONDecoder = true

    public static func == (lhs: ServerSentEvent, rhs: ServerSentEvent) -> Bool {
        lhs.id == rhs.id && lhs.event == rhs.event && lhs.data == rhs.data && lhs.retry == rhs.retry
    }

    /// Decodes the event's `data` as JSON, with `decoder`, else the request's decoder (its
    /// `jsonDecoder`, else the provider's), else a plain `JSONDecoder` for an event made in code.
    ///
    /// - Throws: ``NetworkError/serialization(_:)`` saying where the JSON did not match `type`
    ///   (never quoting the data, which may hold secrets).
    public func decode<T: Decodable>(_ type: T.Type, using decoder: JSONDecoder? = nil) throws(NetworkError) -> T {
        try Self.decode(T.self, from: Data(data.utf8), eventType: event, using: decoder ?? self.decoder,
                        usesFastJSONDecoder: usesFastJSONDecoder)
    }

    /// An event's data decoded as JSON; the error names the event's type and the data's size, never the data.
    static func decode<T: Decodable>(_ type: T.Type, from data: Data, eventType: @autoclosure () -> String?, using decoder: JSONDecoder?,
                                     usesFastJSONDecoder: Bool) throws(NetworkError) -> T {
        do {
            return try JSONBodyDecoding.decode(T.self, from: data, using: decoder ?? Self.plainDecoder,
                                               usesFastJSONDecoder: usesFastJSONDecoder)
        } catch {
            throw .serialization(.init(
                reason: "the data of the event\(eventType().map { " \"\(HeaderFields.printable(String($0.prefix(100))))\"" } ?? "")"
                    + " (\(data.count) bytes) could not be decoded as \(T.self): \(HTTPResponse.describe(error))",
                underlyingError: error))
        }
    }

    private static let plainDecoder = JSONDecoder()
}

// The public initialiser lives in an extension so that the struct keeps its memberwise
// initialiser, which the parser uses to build the event in place (without a copy per event).
extension ServerSentEvent {
    /// Creates an event, e.g. for a mock: `MockResponse.events([ServerSentEvent(data: "{\"text\":\"Hi\"}")])`.
    public init(id: String? = nil, event: String? = nil, data: String, retry: Duration? = nil) {
        self.id = id
        self.event = event
        self.data = data
        self.retry = retry
    }
}

extension ServerSentEvent: CustomStringConvertible {
    /// The event as `text/event-stream` text would carry it, e.g. `event: delta` / `data: {...}`.
    public var description: String { String(decoding: ServerSentEventParser.encode(self), as: UTF8.self) }
}
