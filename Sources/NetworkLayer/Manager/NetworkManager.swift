import Foundation

/// The shared manager, `NetworkManager.shared` by its short name.
public let Net = NetworkManager.shared

/// Runs every request: live through libcurl, or from mock files in mock mode. Its settings can be
/// changed from any thread; a request uses those in force when it starts. A provider's setting wins
/// over the manager's, and a request's over both.
public final class NetworkManager: Sendable {
    /// The manager every request goes through.
    public static let shared = NetworkManager()

    let settings = Protected(Settings())

    /// The mocks this manager answers from in code, and the requests it answered in mock mode.
    public let mocks = MockRegistry()

    /// Creates a manager with its own settings. All managers share one libcurl engine and its connections.
    public init() {}

    // MARK: - Performing requests

    /// Performs `request` and returns its decoded response. The request is copied when the call
    /// starts and runs off the caller's actor; cancelling the task throws ``NetworkError/cancelled``.
    public func perform<Response>(
        _ request: BaseRequest<Response>,
        isolation: isolated (any Actor)? = #isolation
    ) async throws(NetworkError) -> Response {
        try await execute(request.resolved(with: settings.withLock { $0 }), parser: request.parser).value
    }

    /// Performs `request` and returns its decoded value together with the response it came from.
    public func performWithResponse<Response>(
        _ request: BaseRequest<Response>,
        isolation: isolated (any Actor)? = #isolation
    ) async throws(NetworkError) -> (value: Response, response: HTTPResponse) {
        try await execute(request.resolved(with: settings.withLock { $0 }), parser: request.parser)
    }

    /// Performs `request` and calls `completion` on ``completionQueue`` with the result, exactly once.
    /// - Returns: a handle that cancels the request.
    @discardableResult
    public func performRequest<Response>(
        request: BaseRequest<Response>,
        completion: @escaping @Sendable (Result<Response, NetworkError>) -> Void
    ) -> RequestHandle {
        start(request.resolved(with: settings.withLock { $0 }), parser: request.parser, delivering: \.value, to: completion)
    }

    /// The completion-handler form of ``performWithResponse(_:isolation:)``.
    @discardableResult
    public func performRequestWithResponse<Response>(
        request: BaseRequest<Response>,
        completion: @escaping @Sendable (Result<(value: Response, response: HTTPResponse), NetworkError>) -> Void
    ) -> RequestHandle {
        start(request.resolved(with: settings.withLock { $0 }), parser: request.parser, delivering: { $0 }, to: completion)
    }

    private func start<Response: Decodable & Sendable, Delivered: Sendable>(
        _ resolved: ResolvedRequest, parser: (@Sendable (HTTPResponse) throws -> Response)?,
        delivering deliverable: @escaping @Sendable ((value: Response, response: HTTPResponse)) -> Delivered,
        to completion: @escaping @Sendable (Result<Delivered, NetworkError>) -> Void
    ) -> RequestHandle {
        let gate = CompletionGate(queue: completionQueue, completion: completion)
        // Detached: the request must not wait for the caller's actor (a command-line program's
        // main thread may be blocked waiting for this very completion).
        let task = Task.detached {
            do throws(NetworkError) {
                gate.deliver(.success(deliverable(try await self.execute(resolved, parser: parser))))
            } catch {
                gate.deliver(.failure(error))
            }
        }
        // A cancel through the handle answers at once, without waiting for the task to be scheduled.
        return RequestHandle(task) {
            gate.deliver(.failure(.cancelled(.init(request: resolved.describeUnprepared(),
                                                   reason: "it was cancelled through its RequestHandle"))))
        }
    }

    // MARK: - The data path

    /// The request's way: the pipeline → the response handed on → the validator → the parser.
    func execute<Response: Decodable & Sendable>(_ resolved: ResolvedRequest, parser: (@Sendable (HTTPResponse) throws -> Response)?)
        async throws(NetworkError) -> (value: Response, response: HTTPResponse)
    {
        let pipeline = RequestPipeline(resolved: resolved, transport: RequestPipeline.transport(for: resolved, mocks: mocks), started: .now)
        var sent: PreparedRequest?
        defer { resolved.progress?.finish?() }
        do throws(NetworkError) {
            if Task.isCancelled { throw .cancelled(.init(request: resolved.describeUnprepared(), reason: "it was cancelled before it started")) }
            var response = try await pipeline.run(sending: &sent)
            guard let last = sent else { throw .transport(.init(reason: "the request was not sent")) }
            if let stream = response.stream, !response.expectations.acceptableStatuses.contains(response.statusCode) {
                // Its error keeps the start of the body, as any error does.
                response = response.replacingBody(await stream.collect(upTo: HTTPResponse.errorBodyLimit))
            }
            resolved.log?.response(response, to: last, elapsed: pipeline.started.duration(to: .now))
            Self.watchOrRecord(response, of: last, started: pipeline.started)
            do throws(NetworkError) {
                try Self.validate(response, with: resolved.validator)
                return (try Self.parse(response, with: parser, provider: resolved.provider), response)
            } catch {
                // The error keeps the response (and so its stream) for the caller: the transfer
                // must not go on behind it, holding its connection.
                response.stream?.cancel(because: "the response failed validation")
                throw error
            }
        } catch {
            // No secret value of the request in any text of the error, whoever wrote that text.
            let error = sent.map { error.describingRequest($0.redactedDescription).redactingSecrets($0.redactor.secretValues(of: $0)) }
                ?? error.describingRequest(resolved.describeUnprepared())
            resolved.log?.failure(error, of: sent, resolved: resolved, elapsed: pipeline.started.duration(to: .now))
            throw error
        }
    }

    /// Watches a stream (the log and record mode); in record mode writes a complete response as a mock.
    private static func watchOrRecord(_ response: HTTPResponse, of request: PreparedRequest, started: ContinuousClock.Instant) {
        let log = request.resolved.log
        let directory = request.resolved.mockRecordingDirectory
        if let stream = response.stream {
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

    /// The request as an equivalent `curl` command line. Secrets read `<redacted>` unless
    /// `redactingSecrets` is `false` (never log that form).
    public func curlCommand<Response>(for request: BaseRequest<Response>, redactingSecrets: Bool = true,
                                      isolation: isolated (any Actor)? = #isolation) async throws(NetworkError) -> String {
        let resolved = request.resolved(with: settings.withLock { $0 })
        let attempt = try await RequestPipeline(resolved: resolved, transport: RequestPipeline.transport(for: resolved, mocks: mocks),
                                                started: .now).firstAttempt()
        return CurlCommand.render(TransferPlan(attempt), redactingSecrets: redactingSecrets)
    }

    private static func validate(_ response: HTTPResponse, with validator: (@Sendable (HTTPResponse) throws -> Void)?) throws(NetworkError) {
        guard let validator, response.expectations.acceptableStatuses.contains(response.statusCode) else { return }
        do {
            try validator(response)
        } catch {
            throw .thrown(error, by: "the request's validator", request: response.requestDescription, response: response)
        }
    }

    private static func parse<Response: Decodable>(_ response: HTTPResponse, with parser: (@Sendable (HTTPResponse) throws -> Response)?,
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
}
