import Foundation

extension MockResponse {
    /// What this mock answers `request` with. `source` names the registration in errors and in a
    /// mocked failure's reason ("the mock registered for GET /down").
    ///
    /// - Throws: ``NetworkError/invalidRequest`` for a status outside 100...599 or a `.json`
    ///   value the encoder refuses; for `.file`, what ``MockStore/answer(named:for:)`` throws, or
    ///   ``NetworkError/mockNotFound(filename:)``.
    func answer(for request: PreparedRequest, store: MockStore, source: String) throws(NetworkError) -> MockAnswer {
        func invalid(_ reason: String, _ underlying: (any Error)? = nil) -> NetworkError {
            .invalidRequest(.init(request: request.redactedDescription, reason: "\(source): \(reason)", underlyingError: underlying))
        }
        func response(_ body: Data, _ status: Int, _ headers: ResponseHeaders) throws(NetworkError) -> HTTPResponse {
            guard (100...599).contains(status) else { throw invalid("its status \(status) is outside 100...599") }
            return HTTPResponse(statusCode: status, headers: headers, body: body,
                                isMocked: true, origin: request.origin, expectations: request.resolved.expectations)
        }
        switch kind {
        case .json(let encode, let status, let headers, let delay):
            let encoder = request.resolved.jsonEncoder
            let body: Data
            do {
                body = try encode(encoder)
            } catch {
                let why = (error as? EncodingError).map { error -> String in
                    guard case .invalidValue(_, let context) = error else { return "\(error)" }
                    return context.debugDescription
                } ?? "\(error)"
                throw invalid("its .json value could not be encoded: \(why)", error)
            }
            return .response(try response(body, status, headers), delay: delay)
        case .data(let body, let status, let headers, let delay):
            return .response(try response(body, status, headers), delay: delay)
        case .file(let name):
            guard let answer = try store.answer(named: name, for: request) else {
                throw .mockNotFound(filename: "\(try store.file(named: name, extension: "json").path) (named by \(source))")
            }
            return answer
        case .failure(let error):
            return .failure(error.mocked(from: source, request: request.redactedDescription), delay: .zero)
        case .events(let events, let eventDelay):
            guard eventDelay >= .zero, eventDelay <= MockAnswer.maximumDelay else {
                throw invalid("its eventDelay of \(eventDelay.seconds.compactText) s is not from 0 to \(MockAnswer.maximumDelay.seconds.compactText) s")
            }
            let body = ServerSentEventParser.encode(events).reduce(into: Data()) { $0.append($1) }
            return .stream(try response(body, 200, ResponseHeaders(["Content-Type": "text/event-stream"])), delay: .zero, eventDelay: eventDelay)
        case .webSocket(let peer):
            return .response(MockWebSocketChannel.upgrade(for: request, peer: peer), delay: .zero)
        }
    }
}
