import Foundation

/// What a mock registered in code answers with: a JSON value, bytes, a mock file, a bare status,
/// or a failure. Every answer goes through the same path as a live one: status validation,
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
        case webSocket(@Sendable (WebSocketPeer) async throws -> Void)
    }

    let kind: Kind

    /// `value` encoded as JSON with the encoder the request would use for a JSON body, so the
    /// provider's decoder reads it back as it reads the server's. `Content-Type: application/json`
    /// is added unless given; a `delay` longer than the request's timeout ends in
    /// ``NetworkError/timeOut``.
    public static func json(_ value: some Encodable & Sendable, status: Int = 200, headers: [String: String] = [:],
                            delay: Duration = .zero) -> MockResponse {
        var headers = headers
        if !headers.keys.contains(where: { $0.equalsIgnoringASCIICase("Content-Type") }) {
            headers["Content-Type"] = "application/json"
        }
        return MockResponse(kind: .json(encode: { encoder in try encoder.encode(value) }, status: status,
                                        headers: ResponseHeaders(headers), delay: delay))
    }

    /// `value` encoded as JSON, with headers given line by line so that a name may repeat.
    public static func json(_ value: some Encodable & Sendable, status: Int = 200,
                            headerFields: [(name: String, value: String)], delay: Duration = .zero) -> MockResponse {
        var fields = headerFields
        if !fields.contains(where: { $0.name.equalsIgnoringASCIICase("Content-Type") }) {
            fields.append((name: "Content-Type", value: "application/json"))
        }
        return MockResponse(kind: .json(encode: { encoder in try encoder.encode(value) }, status: status,
                                        headers: ResponseHeaders(fields: fields), delay: delay))
    }

    /// `data` as the body, exactly, with exactly `headers`.
    public static func data(_ data: Data, status: Int = 200, headers: [String: String] = [:],
                            delay: Duration = .zero) -> MockResponse {
        MockResponse(kind: .data(data, status: status, headers: ResponseHeaders(headers), delay: delay))
    }

    /// `data` as the body, with headers given line by line so that a name may repeat.
    public static func data(_ data: Data, status: Int = 200, headerFields: [(name: String, value: String)],
                            delay: Duration = .zero) -> MockResponse {
        MockResponse(kind: .data(data, status: status, headers: ResponseHeaders(fields: headerFields), delay: delay))
    }

    /// The mock file `name` in the mock directory, with its `.meta.json` sidecar if any.
    /// A missing file is ``NetworkError/mockNotFound(filename:)``.
    public static func file(_ name: String) -> MockResponse {
        MockResponse(kind: .file(name))
    }

    /// A bare status, with `body` (empty by default) and no headers.
    public static func status(_ code: Int, body: Data = Data()) -> MockResponse {
        MockResponse(kind: .data(body, status: code, headers: ResponseHeaders([:]), delay: .zero))
    }

    /// Server-sent events: status 200, `Content-Type: text/event-stream`, with `eventDelay` before
    /// each event after the first. An ``EventStream`` reads them one by one; any other response type
    /// gets the whole text. An `eventDelay` longer than the timeout ends in ``NetworkError/timeOut``.
    public static func events(_ events: [ServerSentEvent], eventDelay: Duration = .zero) -> MockResponse {
        MockResponse(kind: .events(events, eventDelay: eventDelay))
    }

    /// A failure instead of an answer: the request throws `error` as a live one would (retried,
    /// logged). To rehearse a failing status, use ``status(_:body:)``.
    public static func failure(_ error: NetworkError) -> MockResponse {
        MockResponse(kind: .failure(error))
    }
}
