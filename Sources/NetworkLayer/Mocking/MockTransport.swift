import Foundation

/// Answers requests from mocks instead of the network: no socket is ever opened. Each request is
/// recorded as it would have gone out, then answered (in the order ``MockRegistry`` documents)
/// and delivered back up the data path exactly as a live response or failure would.
struct MockTransport: Transport {
    let store: MockStore
    let registry: MockRegistry

    nonisolated(nonsending) func send(_ request: PreparedRequest, download: PendingDownload?) async throws(NetworkError) -> HTTPResponse {
        let recorded = RecordedRequest(request, streamed: try await Self.drainStreamedBody(of: request))
        registry.record(recorded)
        let answer = try answer(for: request, recorded: recorded)
        let response = try await answer.deliver(for: request)
        if request.resolved.webSocket != nil { return try MockWebSocketChannel.answer(response, to: request, registry: registry) }
        guard let kind = request.resolved.streamKind else { return response }
        guard kind == .events, answer.cutAfterEvents != nil || request.headers.value(for: "Last-Event-ID") != nil else {
            var head = response.replacingBody(Data())
            head.stream = MockStream.start(MockStream.pieces(of: response.body, kind: kind, paced: answer.eventDelay > .zero),
                                           eventDelay: answer.eventDelay, for: request)
            return head
        }
        // Resumed after the request's `Last-Event-ID`; with nothing after it, 204 No Content.
        let events = MockStream.events(of: response.body, after: request.headers.value(for: "Last-Event-ID"))
        guard events.resumed == nil || !events.pieces.isEmpty else {
            return HTTPResponse(statusCode: 204, headers: ResponseHeaders([:]), body: Data(), isMocked: true, origin: request.origin,
                                expectations: request.resolved.expectations)
        }
        var head = response.replacingBody(Data())
        head.stream = MockStream.start(events.pieces, eventDelay: answer.eventDelay, cutAfterEvents: answer.cutAfterEvents,
                                       for: request)
        return head
    }

    /// A streamed body is read whole first, so that a producer waiting for its chunks to be taken
    /// never hangs; a sequence that throws or breaks its declared length fails as it would live.
    private static func drainStreamedBody(of request: PreparedRequest) async throws(NetworkError) -> (kept: Data?, total: Int64)? {
        guard case .stream(let upload)? = request.body?.forSending else { return nil }
        guard upload.claim() else {
            throw UploadStream.alreadySent(request: request.redactedDescription)
        }
        let drained = await upload.drain(keepingAtMost: RecordedRequest.recordedBodyLimit)
        if let failure = upload.failure { throw upload.error(for: failure, request: request.redactedDescription) }
        return drained
    }

    /// The first mock that answers `request`, or ``NetworkError/mockNotFound(filename:)``.
    func answer(for request: PreparedRequest, recorded: RecordedRequest) throws(NetworkError) -> MockAnswer {
        try sourcedAnswer(for: request, recorded: recorded).answer
    }

    /// The first mock that answers `request`, and the registration or file it came from.
    func sourcedAnswer(for request: PreparedRequest, recorded: RecordedRequest) throws(NetworkError) -> (answer: MockAnswer, source: String) {
        if let (response, source) = try registry.response(for: request, recorded: recorded) {
            return (try response.answer(for: request, store: store, source: source), source)
        }
        var names: [String] = []
        if let filename = request.resolved.mockedResponseFilename { names.append(filename) }
        if let operationID = request.resolved.operationID { names.append(operationID) }
        names.append(MockStore.methodPathName(for: request))
        var files: [String] = []
        for name in names {
            if let answer = try store.answer(named: name, for: request) { return (answer, "the mock file \(name)") }
            let file = try store.bodyFile(named: name, for: request)
            files.append(file.path + (request.resolved.streamKind == .bytes ? " (or any other extension)" : ""))
        }
        if let fallback = registry.fallbackResponse(for: recorded) {
            registry.usage.unmocked(request, answeredByFallback: true)
            return (try fallback.answer(for: request, store: store, source: "the fallback mock"), "the fallback mock")
        }
        registry.usage.unmocked(request, answeredByFallback: false)
        // The files first, so the text starts with a full path.
        let registrations = MockRegistry.placesLooked(for: request).joined(separator: " and for ")
        let fallback = registry.hasFallback ? ", and the fallback mock, which answered nil" : ""
        throw .mockNotFound(filename: files.joined(separator: ", then ") + " (after mocks registered in code for \(registrations)\(fallback))")
    }
}
