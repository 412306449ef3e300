import Foundation

/// What a mock registered in code answers with: a JSON value, bytes, a mock file, a bare status,
/// or a failure.
///
/// ```swift
/// net.mocks.register(.get, "/profile", .json(Profile(name: "Ada")))                   // 200, encoded as the app would
/// net.mocks.register(.get, "/avatar", .data(png, headers: ["Content-Type": "image/png"], delay: .milliseconds(300)))
/// net.mocks.register(.get, "/search", .file("ITunesSearchMockedResponse"))          // a file in the mock directory
/// net.mocks.register(.delete, "/profile", .status(204))
/// net.mocks.register(.get, "/down", .failure(.reachability))                        // as if the network were down
/// ```
///
/// Every answer goes through the same path as a live one: status validation, the provider's
/// `parseAndValidate`, typed error bodies, retries, the log (marked `[MOCK]`).
public struct MockResponse: Sendable {
    enum Kind: Sendable {
        /// A value encoded when it answers, with the encoder the request's body would use.
        case json(encode: @Sendable (JSONEncoder) throws -> Data, status: Int, headers: ResponseHeaders, delay: Duration)
        case data(Data, status: Int, headers: ResponseHeaders, delay: Duration)
        case file(String)
        case failure(NetworkError)
        /// Server-sent events, answered as a `text/event-stream` body paced by `eventDelay`.
        case events([ServerSentEvent], eventDelay: Duration)
        /// A WebSocket whose server is the closure (``MockResponse/webSocket(_:)``).
        case webSocket(@Sendable (WebSocketPeer) async throws -> Void)
    }

    let kind: Kind

    /// `value` encoded as JSON, with the encoder the request would use for a JSON body (the
    /// request's `jsonEncoder`, else the provider's), so the provider's decoder reads it back
    /// as it reads the server's answers.
    ///
    /// - Parameters:
    ///   - value: any `Encodable` value.
    ///   - status: the HTTP status, 100...599. Default 200.
    ///   - headers: the response headers; `Content-Type: application/json` is added unless given.
    ///   - delay: how long the answer takes, from zero to an hour; a delay longer than the
    ///     request's timeout ends in ``NetworkError/timeOut``, as a slow server would.
    public static func json(_ value: some Encodable & Sendable, status: Int = 200, headers: [String: String] = [:],
                            delay: Duration = .zero) -> MockResponse {
        var headers = headers
        if !headers.keys.contains(where: { $0.equalsIgnoringASCIICase("Content-Type") }) {
            headers["Content-Type"] = "application/json"
        }
        return MockResponse(kind: .json(encode: { encoder in try encoder.encode(value) }, status: status,
                                        headers: ResponseHeaders(headers), delay: delay))
    }

    /// `value` encoded as JSON, as ``json(_:status:headers:delay:)``, with headers given line by
    /// line so that a name may repeat (``HTTPResponse/values(forHeader:)`` then gives each line).
    ///
    /// ```swift
    /// net.mocks.register(.get, "/items", .json(items, headerFields: [("Link", #"</items?page=2>; rel="next""#),
    ///                                                              ("Link", #"</items?page=9>; rel="last""#)]))
    /// ```
    public static func json(_ value: some Encodable & Sendable, status: Int = 200,
                            headerFields: [(name: String, value: String)], delay: Duration = .zero) -> MockResponse {
        var fields = headerFields
        if !fields.contains(where: { $0.name.equalsIgnoringASCIICase("Content-Type") }) {
            fields.append((name: "Content-Type", value: "application/json"))
        }
        return MockResponse(kind: .json(encode: { encoder in try encoder.encode(value) }, status: status,
                                        headers: ResponseHeaders(fields: fields), delay: delay))
    }

    /// `data` as the body, exactly.
    ///
    /// - Parameters:
    ///   - data: the body.
    ///   - status: the HTTP status, 100...599. Default 200.
    ///   - headers: the response headers, exactly (none by default).
    ///   - delay: how long the answer takes, as for ``json(_:status:headers:delay:)``.
    public static func data(_ data: Data, status: Int = 200, headers: [String: String] = [:],
                            delay: Duration = .zero) -> MockResponse {
        MockResponse(kind: .data(data, status: status, headers: ResponseHeaders(headers), delay: delay))
    }

    /// `data` as the body, exactly, with headers given line by line so that a name may repeat
    /// (two `Set-Cookie` lines; ``HTTPResponse/values(forHeader:)`` gives each).
    public static func data(_ data: Data, status: Int = 200, headerFields: [(name: String, value: String)],
                            delay: Duration = .zero) -> MockResponse {
        MockResponse(kind: .data(data, status: status, headers: ResponseHeaders(fields: headerFields), delay: delay))
    }

    /// The mock file `name` in the mock directory (`<name>.json`, with its `<name>.meta.json`
    /// sidecar if there is one: status, headers, delay, or a failure), checked like any mock
    /// name. A missing file is ``NetworkError/mockNotFound(filename:)``.
    public static func file(_ name: String) -> MockResponse {
        MockResponse(kind: .file(name))
    }

    /// A bare status, with `body` (empty by default) and no headers: `.status(401)`, `.status(204)`,
    /// `.status(422, body: errorJSON)` for a typed error body.
    public static func status(_ code: Int, body: Data = Data()) -> MockResponse {
        MockResponse(kind: .data(body, status: code, headers: ResponseHeaders([:]), delay: .zero))
    }

    /// Server-sent events: status 200, `Content-Type: text/event-stream`, the events written as
    /// the stream's text, with `eventDelay` before each event after the first, so a UI can be
    /// built against a realistic token stream offline.
    ///
    /// ```swift
    /// net.mocks.register(ChatCompletionStream.self, .events([
    ///     ServerSentEvent(data: #"{"text":"Hel"}"#), ServerSentEvent(data: #"{"text":"lo"}"#), ServerSentEvent(data: "[DONE]"),
    /// ], eventDelay: .milliseconds(40)))
    /// ```
    ///
    /// An ``EventStream`` request reads them one by one; a ``ByteStream`` gets their text; any
    /// other response type gets the whole text as its body at once. An `eventDelay` longer than
    /// the request's timeout ends the stream with ``NetworkError/timeOut``, as a silent server would.
    public static func events(_ events: [ServerSentEvent], eventDelay: Duration = .zero) -> MockResponse {
        MockResponse(kind: .events(events, eventDelay: eventDelay))
    }

    /// A failure instead of an answer: the request throws `error` as a live one would (retry
    /// policies retry it, the log shows it). Its context gets the request and a reason saying
    /// it was mocked. Use the live cases: `.reachability`, `.timeOut`, `.invalidCertificate`,
    /// `.transport`, `.cancelled`; to rehearse a failing *status*, use ``status(_:body:)``.
    public static func failure(_ error: NetworkError) -> MockResponse {
        MockResponse(kind: .failure(error))
    }
}
