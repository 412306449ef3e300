import Foundation
import Synchronization

/// The shared manager, `NetworkManager.shared` by its short name.
public let Net = NetworkManager.shared

/// Runs every request: live through libcurl, or from mock files in mock mode.
///
/// Use the shared instance, `Net`. Its settings can be changed from any thread at any time; a
/// request uses the settings in force when it starts.
///
/// ```swift
/// let response = try await Net.perform(ITunesSearchRequest(artist: "Dream Theater", limit: 3))
/// ```
public final class NetworkManager: Sendable {
    /// The manager every request goes through.
    public static let shared = NetworkManager()

    let settings = Protected(Settings())

    /// The mocks this manager answers from in code, and the requests it answered in mock mode.
    /// See ``MockRegistry``.
    public let mocks = MockRegistry()

    /// Creates a manager with its own settings. Most code uses the shared ``Net``; a separate
    /// manager suits a test or a component that needs, say, mock mode while the rest of the app
    /// stays live. All managers share one libcurl engine and its connections.
    public init() {}

    // MARK: - Performing requests

    /// Performs `request` and returns its decoded response.
    ///
    /// The request is copied when the call starts; the rest runs off the caller's actor, so
    /// calling this from the main actor never blocks it. Cancelling the calling task cancels the
    /// transfer and throws ``NetworkError/cancelled``.
    ///
    /// - Throws: only ``NetworkError``.
    public func perform<Response>(
        _ request: BaseRequest<Response>,
        isolation: isolated (any Actor)? = #isolation
    ) async throws(NetworkError) -> Response {
        try await execute(request.resolved(with: settings.withLock { $0 }), parser: request.parser).value
    }

    /// Performs `request` and returns its decoded value together with the response it came from,
    /// for when the status or headers matter too (a pagination `Link`, an `ETag`).
    ///
    /// ```swift
    /// let (users, response) = try await Net.performWithResponse(UsersRequest(page: 2))
    /// let next = response.value(forHeader: "Link")
    /// ```
    public func performWithResponse<Response>(
        _ request: BaseRequest<Response>,
        isolation: isolated (any Actor)? = #isolation
    ) async throws(NetworkError) -> (value: Response, response: HTTPResponse) {
        try await execute(request.resolved(with: settings.withLock { $0 }), parser: request.parser)
    }

    /// Performs `request` and calls `completion` with the result, exactly once.
    ///
    /// `completion` runs on ``completionQueue`` (by default a private serial queue, so it works in
    /// a command-line program with no run loop; set it to `.main` in an app).
    ///
    /// - Returns: a handle that cancels the request.
    @discardableResult
    public func performRequest<Response>(
        request: BaseRequest<Response>,
        completion: @escaping @Sendable (Result<Response, NetworkError>) -> Void
    ) -> RequestHandle {
        start(request.resolved(with: settings.withLock { $0 }), parser: request.parser, delivering: \.value, to: completion)
    }

    /// Performs `request` and calls `completion` with the decoded value together with the
    /// response it came from, exactly once: the completion-handler form of
    /// ``performWithResponse(_:isolation:)``.
    ///
    /// ```swift
    /// Net.performRequestWithResponse(request: UsersRequest(page: 2)) { result in
    ///     if case .success(let (users, response)) = result { print(users.count, response.value(forHeader: "Link") ?? "") }
    /// }
    /// ```
    ///
    /// `completion` runs on ``completionQueue``, as for ``performRequest(request:completion:)``.
    ///
    /// - Returns: a handle that cancels the request.
    @discardableResult
    public func performRequestWithResponse<Response>(
        request: BaseRequest<Response>,
        completion: @escaping @Sendable (Result<(value: Response, response: HTTPResponse), NetworkError>) -> Void
    ) -> RequestHandle {
        start(request.resolved(with: settings.withLock { $0 }), parser: request.parser, delivering: { $0 }, to: completion)
    }

    /// Runs a request for a completion handler: off the caller's actor, delivered once.
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

    /// The request's way through the library, from its resolved settings to its value:
    /// the pipeline (attempts, adapt, transport, redirects, retries) → the response's stream or
    /// body handed on (recorded in record mode) → the request's validator → the parser (the
    /// request's, else the provider's `parseAndValidate`) → the value. The log watches both ends.
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
                // A stream whose status fails: its error keeps the start of the body (64 KB), as any error does.
                response = response.replacingBody(await stream.collect(upTo: HTTPResponse.errorBodyLimit))
            }
            resolved.log?.response(response, to: last, elapsed: pipeline.started.duration(to: .now))
            Self.handOn(response, of: last, started: pipeline.started)
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

    /// A stream is watched (the log tells its end; record mode writes its body as it is read); in
    /// record mode a complete response is written as a mock.
    private static func handOn(_ response: HTTPResponse, of request: PreparedRequest, started: ContinuousClock.Instant) {
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

    /// Record mode: writes a live response as a mock. A failure to write is logged, never thrown:
    /// recording must not change what the request returns.
    private static func record(_ response: HTTPResponse, for request: PreparedRequest, in directory: URL, log: NetworkLog?) {
        do throws(NetworkError) {
            try MockStore(directory: directory).record(response, for: request)
        } catch {
            let message = "record mode: \(error.errorDescription ?? "\(error)")\n"
            if let log { log.note(message, of: request) } else { FileHandle.standardError.write(Data(message.utf8)) }
        }
    }

    /// Record mode for a stream: the recorder that writes its body as it is read, or `nil` (and a
    /// note in the log) when it cannot. Recording must not change what the request returns.
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

    /// The request as an equivalent `curl` command line, to replay it in a shell.
    ///
    /// It carries what the request would send now: the provider's headers and credentials, the
    /// body, what the provider's `adapt(_:)` changes (it runs for this), the timeout, the custom
    /// CA bundle. Secrets are replaced with `<redacted>` unless
    /// `redactingSecrets` is `false` (never log that form).
    ///
    /// ```swift
    /// print(try await Net.curlCommand(for: ITunesSearchRequest(artist: "Dream Theater", limit: 3)))
    /// // curl 'https://itunes.apple.com/search?limit=3&term=Dream%20Theater' -H 'Accept: application/json' --compressed ...
    /// ```
    public func curlCommand<Response>(for request: BaseRequest<Response>, redactingSecrets: Bool = true,
                                      isolation: isolated (any Actor)? = #isolation) async throws(NetworkError) -> String {
        let resolved = request.resolved(with: settings.withLock { $0 })
        let attempt = try await RequestPipeline(resolved: resolved, transport: RequestPipeline.transport(for: resolved, mocks: mocks),
                                                started: .now).firstAttempt()
        return CurlCommand.render(TransferPlan(attempt), redactingSecrets: redactingSecrets)
    }

    /// The request's own `validator`, for a response with an acceptable status; what it throws
    /// becomes a ``NetworkError`` that carries the response and keeps a foreign error as `underlyingError`.
    private static func validate(_ response: HTTPResponse, with validator: (@Sendable (HTTPResponse) throws -> Void)?) throws(NetworkError) {
        guard let validator, response.expectations.acceptableStatuses.contains(response.statusCode) else { return }
        do {
            try validator(response)
        } catch {
            throw .thrown(error, by: "the request's validator", request: response.requestDescription, response: response)
        }
    }

    /// The value: the request's `parser` after the status is validated, else the provider's
    /// `parseAndValidate`. What they throw becomes a ``NetworkError`` that carries the response
    /// and keeps a foreign error as `underlyingError`.
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
