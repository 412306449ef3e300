import Foundation

// The call's last steps, after its chain: the response is logged and recorded, validated, then
// parsed. They follow the chain, middlewares included, so that a response a middleware returns
// without calling `next` (its own cache's, a made-up one) is validated and decoded like any other;
// a middleware that wants to see a validation failure validates itself.
extension Call {
    /// The call's value: ``run(sending:)`` → ``recorded(_:of:)`` → ``validate(_:with:)`` →
    /// ``parse(_:with:provider:)``. `hop` is as for ``run(sending:)``.
    nonisolated(nonsending) func value<Response: Decodable & Sendable>(
        parser: (@Sendable (HTTPResponse) throws -> Response)?, sending hop: inout PreparedRequest?
    ) async throws(NetworkError) -> (value: Response, response: HTTPResponse) {
        let received = try await run(sending: &hop)
        guard let last = hop else { throw .transport(.init(reason: "the request was not sent")) }
        let response = await recorded(received, of: last)
        do throws(NetworkError) {
            try Self.validate(response, with: resolved.validator)
            return (try Self.parse(response, with: parser, provider: resolved.provider), response)
        } catch {
            // The error keeps the response (and so its stream) for the caller: the transfer must
            // not go on behind it, holding its connection.
            response.stream?.cancel(because: "the response failed validation")
            throw error
        }
    }

    /// The response as the log and record mode see it: a stream with a failing status has the
    /// start of its body collected (its error keeps it, as any error does); then the log's line,
    /// and record mode's file (or, for a stream, their observer).
    private nonisolated(nonsending) func recorded(_ received: HTTPResponse, of hop: PreparedRequest) async -> HTTPResponse {
        var response = received
        if let stream = response.stream, !response.expectations.acceptableStatuses.contains(response.statusCode) {
            response = response.replacingBody(await stream.collect(upTo: HTTPResponse.errorBodyLimit))
        }
        resolved.log?.response(response, to: hop, elapsed: started.duration(to: .now))
        Self.watchOrRecord(&response, of: hop, started: started)
        return response
    }

    /// The request's validator, for a response whose status is acceptable.
    static func validate(_ response: HTTPResponse, with validator: (@Sendable (HTTPResponse) throws -> Void)?) throws(NetworkError) {
        guard let validator, response.expectations.acceptableStatuses.contains(response.statusCode) else { return }
        do {
            try validator(response)
        } catch {
            throw .thrown(error, by: "the request's validator", request: response.requestDescription, response: response)
        }
    }

    /// The value: the request's parser after the status check, else the provider's `parseAndValidate`.
    static func parse<Response: Decodable>(_ response: HTTPResponse, with parser: (@Sendable (HTTPResponse) throws -> Response)?,
                                           provider: any ServiceProvider) throws(NetworkError) -> Response {
        guard let parser else {
            do {
                return try provider.parseAndValidate(response, as: Response.self)
            } catch {
                throw .thrown(error, by: "the provider's parseAndValidate", request: response.requestDescription, response: response)
            }
        }
        try response.validateStatus()
        do {
            return try parser(response)
        } catch {
            throw .thrown(error, by: "the request's parser", request: response.requestDescription, response: response, parsing: true)
        }
    }

    /// Watches a stream (the log and record mode); in record mode writes a complete response as a
    /// mock, and puts a WebSocket's recorder in front of its socket.
    private static func watchOrRecord(_ response: inout HTTPResponse, of request: PreparedRequest, started: ContinuousClock.Instant) {
        let log = request.resolved.log
        let directory = request.resolved.mockRecordingDirectory
        if let directory, let upgrade = response.webSocket, !response.isMocked, response.statusCode == 101 {
            do throws(NetworkError) {
                let recorder = try RecordingWebSocketChannel(recording: upgrade.channel, for: request, in: MockStore(directory: directory))
                response.webSocket = upgrade.replacingChannel(with: recorder)
            } catch {
                let message = "record mode: \(error.errorDescription ?? "\(error)")\n"
                if let log { log.note(message, of: request) } else { FileHandle.standardError.write(Data(message.utf8)) }
            }
        } else if let stream = response.stream {
            var recorder: StreamRecorder?
            if let directory { recorder = Self.recorder(for: response, of: request, in: directory, log: log) }
            stream.observe(.init(log: log, request: request, started: started, recorder: recorder))
        } else if let directory {
            record(response, for: request, in: directory, log: log)
        }
    }

    /// Record mode: a failure to write is logged, never thrown (recording must not change the result).
    private static func record(_ response: HTTPResponse, for request: PreparedRequest, in directory: URL, log: NetworkLog?) {
        do throws(NetworkError) {
            try MockStore(directory: directory).record(response, for: request)
        } catch {
            let message = "record mode: \(error.errorDescription ?? "\(error)")\n"
            if let log { log.note(message, of: request) } else { FileHandle.standardError.write(Data(message.utf8)) }
        }
    }

    /// Record mode for a stream, or `nil` (and a note in the log) when it cannot record.
    private static func recorder(for response: HTTPResponse, of request: PreparedRequest, in directory: URL,
                                 log: NetworkLog?) -> StreamRecorder? {
        do throws(NetworkError) {
            return try StreamRecorder(recording: response, for: request, in: MockStore(directory: directory), log: log)
        } catch {
            let message = "record mode: \(error.errorDescription ?? "\(error)")\n"
            if let log { log.note(message, of: request) } else { FileHandle.standardError.write(Data(message.utf8)) }
            return nil
        }
    }
}
