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
        try await execute(request.snapshot(), as: Response.self).value
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
        try await execute(request.snapshot(), as: Response.self)
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
        start(request.snapshot(), as: Response.self, delivering: \.value, to: completion)
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
        start(request.snapshot(), as: Response.self, delivering: { $0 }, to: completion)
    }

    /// Runs a snapshot for a completion handler: off the caller's actor, delivered once.
    private func start<Response: Decodable & Sendable, Delivered: Sendable>(
        _ snapshot: RequestSnapshot, as type: Response.Type,
        delivering deliverable: @escaping @Sendable ((value: Response, response: HTTPResponse)) -> Delivered,
        to completion: @escaping @Sendable (Result<Delivered, NetworkError>) -> Void
    ) -> RequestHandle {
        let gate = CompletionGate(queue: completionQueue, completion: completion)
        // Detached: the request must not wait for the caller's actor (a command-line program's
        // main thread may be blocked waiting for this very completion).
        let task = Task.detached {
            do throws(NetworkError) {
                gate.deliver(.success(deliverable(try await self.execute(snapshot, as: Response.self))))
            } catch {
                gate.deliver(.failure(error))
            }
        }
        // A cancel through the handle answers at once, without waiting for the task to be scheduled.
        return RequestHandle(task) {
            gate.deliver(.failure(.cancelled(.init(request: snapshot.describeUnprepared(),
                                                   reason: "it was cancelled through its RequestHandle"))))
        }
    }

    // MARK: - The data path

    /// snapshot → provider headers → prepared request → provider's adapt (each attempt) → transport → response
    /// → request's validator → provider's validation → value.
    /// The log watches both ends.
    func execute<Response: Decodable & Sendable>(_ snapshot: consuming RequestSnapshot, as type: Response.Type)
        async throws(NetworkError) -> (value: Response, response: HTTPResponse)
    {
        let settings = self.settings.withLock { $0 }
        // Consuming: the caller's snapshot is this one, not a copy (two dozen fields).
        snapshot.expectations.usesFastJSONDecoder = snapshot.expectations.usesFastJSONDecoder && settings.usesFastJSONDecoder
        let isMocked = settings.areMocksEnabled
        let log = NetworkLog(settings: settings, mocked: isMocked)
        let started = ContinuousClock.now
        var prepared: PreparedRequest?
        defer { snapshot.progress?.finish?() }
        do throws(NetworkError) {
            if Task.isCancelled { throw .cancelled(.init(reason: "it was cancelled before it started")) }
            // Taken apart, not copied out of the tuple (the options alone hold a dozen references).
            let (firstRequest, options, providerHeaders, firstCredentials) = try await Self.prepare(snapshot, settings: settings)
            var request = firstRequest
            var credentials = firstCredentials
            prepared = request
            if !isMocked, let note = options.unpinnedSocketNote(for: request) { log?.note(note, of: request) }

            let transport: any Transport = isMocked
                ? MockTransport(store: MockStore(directory: settings.mockResponsesDirectory), registry: mocks)
                : CurlTransport()
            // Each attempt is adapted by the provider just before it goes; the log shows the first as sent.
            var (response, sent) = try await Self.send(request, adaptedBy: snapshot.provider, via: transport, options: options,
                                                       retrying: snapshot.retryPolicy, log: log, logsRequest: true)
            prepared = sent

            // A 401 with a refreshable token: one refresh (shared with concurrent requests), one retry.
            if response.statusCode == 401, let source = snapshot.authentication?.refreshableSource, let stale = credentials?.token {
                log?.retry("401: refreshing the token, then retrying once", of: request)
                credentials = try await snapshot.authentication?.credentials(token: try await source.token(replacing: stale))
                // The token is fresh for the next request; a streamed body cannot go a second time.
                if sent.sendsBodyOnce {
                    response.stream?.cancel(because: "its request could not be retried")
                    throw sent.cannotSendBodyAgain(after: response, "the server answered 401 and the token was refreshed")
                }
                request = try snapshot.prepare(providerHeaders: providerHeaders, credentials: credentials, redactor: settings.redactor)
                prepared = request
                (response, sent) = try await Self.send(request, adaptedBy: snapshot.provider, via: transport, options: options,
                                                       retrying: snapshot.retryPolicy, log: log, logsRequest: false)
                prepared = sent
            }
            if let stream = response.stream, !response.expectations.acceptableStatuses.contains(response.statusCode) {
                // A stream whose status fails: its error keeps the start of the body (64 KB), as any error does.
                response = response.replacingBody(await stream.collect(upTo: HTTPResponse.errorBodyLimit))
            }
            log?.response(response, to: sent, elapsed: started.duration(to: .now))
            let recording = isMocked ? nil : settings.mockRecordingDirectory
            if let stream = response.stream {
                // The stream logs its end and records its body as it is read.
                let recorder = recording.flatMap { Self.recorder(for: response, of: sent, in: $0, log: log) }
                stream.observe(.init(log: log, request: sent, started: started, recorder: recorder))
            } else if let recording {
                Self.record(response, for: sent, in: recording, log: log)
            }

            do throws(NetworkError) {
                try Self.validate(response, with: snapshot.validator)
                return (try Self.parse(response, with: snapshot.provider, as: type), response)
            } catch {
                // The error keeps the response (and so its stream) for the caller: the transfer
                // must not go on behind it, holding its connection.
                response.stream?.cancel(because: "the response failed validation")
                throw error
            }
        } catch {
            // No secret value of the request in any text of the error, whoever wrote that text.
            let error = prepared.map { error.describingRequest($0.redactedDescription).redactingSecrets($0.redactor.secretValues(of: $0)) }
                ?? error
            log?.failure(error, of: prepared, snapshot: snapshot, elapsed: started.duration(to: .now))
            throw error
        }
    }

    /// Sends through the transport, trying again as the retry policy allows. Before each attempt
    /// the provider's `adapt(_:)` sees the request; returns the response with the request sent last.
    /// `nonisolated(nonsending)`, as the other steps below `execute`: they run on its executor
    /// (off the caller's actor already), each call without an executor switch.
    private nonisolated(nonsending) static func send(_ request: PreparedRequest, adaptedBy provider: any ServiceProvider, via transport: any Transport,
                             options: TransferOptions, retrying policy: RetryPolicy?, log: NetworkLog?,
                             logsRequest: Bool) async throws(NetworkError) -> (response: HTTPResponse, sent: PreparedRequest) {
        var adapted = try await adapt(request, with: provider)
        if logsRequest { log?.request(adapted, curl: CurlCommand.render(adapted, options: options, redactingSecrets: true)) }
        // A streamed body is read by the first attempt: never retried.
        guard let policy, policy.maximumAttempts > 1, policy.allows(request.method), !request.sendsBodyOnce else {
            return (try await transport.send(adapted, options: options), adapted)
        }
        var attempt = 1
        while true {
            if attempt > 1 { adapted = try await adapt(request, with: provider) }
            let outcome: Result<HTTPResponse, NetworkError>
            do throws(NetworkError) {
                outcome = .success(try await transport.send(adapted, options: options))
            } catch {
                outcome = .failure(error)
            }
            let retryAfter: String?
            let cause: String
            switch outcome {
            case .success(let response) where policy.retryableStatuses.contains(response.statusCode):
                retryAfter = response.value(forHeader: "Retry-After")
                cause = "status \(response.statusCode)"
            case .failure(let error) where policy.retries(error):
                retryAfter = nil
                cause = error.context?.reason ?? error.errorDescription ?? "\(error)"
            default:
                return (try outcome.get(), adapted)
            }
            guard attempt < policy.maximumAttempts else { return (try outcome.get(), adapted) }
            let delay = policy.delay(after: attempt, retryAfter: retryAfter)
            log?.retry("attempt \(attempt) of \(policy.maximumAttempts) failed (\(cause)); retrying in \(NetworkLog.milliseconds(delay)) ms",
                       of: adapted)
            do {
                try await Task.sleep(for: delay)
            } catch {
                throw .cancelled(.init(request: request.redactedDescription, reason: "it was cancelled while waiting to retry"))
            }
            attempt += 1
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
        let snapshot = request.snapshot()
        let (prepared, options, _, _) = try await Self.prepare(snapshot, settings: settings.withLock { $0 })
        return CurlCommand.render(try await Self.adapt(prepared, with: snapshot.provider), options: options,
                                  redactingSecrets: redactingSecrets)
    }

    /// What a request sends, before the provider's `adapt(_:)`: the provider's headers and the
    /// credentials fetched, the request prepared with both, and the transfer options for it under
    /// `settings`. `perform` and `curlCommand(for:)` both start here, so the command line is the
    /// request the manager would send.
    private nonisolated(nonsending) static func prepare(_ snapshot: RequestSnapshot, settings: Settings) async throws(NetworkError)
        -> (request: PreparedRequest, options: TransferOptions, providerHeaders: [String: String],
            credentials: Authentication.Credentials?)
    {
        let providerHeaders = try await headers(for: snapshot, redactor: settings.redactor)
        let credentials = try await snapshot.authentication?.credentials()
        let request = try snapshot.prepare(providerHeaders: providerHeaders, credentials: credentials, redactor: settings.redactor)
        var options = settings.transferOptions
        options.maximumResponseSize = snapshot.maximumResponseSize ?? settings.maximumResponseSize
        options.decompressionLimit = snapshot.decompressionLimit ?? settings.decompressionLimit
        if let limit = options.maximumResponseSize, limit < 0 {
            throw .invalidRequest(.init(request: request.redactedDescription,
                                        reason: "the maximum response size must be zero or more bytes, not \(limit)"))
        }
        options.proxy = snapshot.provider.proxy ?? settings.proxy
        options.unixSocketPath = snapshot.provider.unixSocketPath
        options.clientCertificate = snapshot.provider.clientCertificate
        // A Cookie header set by the user wins: that request neither sends nor stores the store's cookies.
        if !request.headers.contains(where: { $0.name.equalsIgnoringASCIICase("Cookie") }) { options.cookieJar = settings.cookieJar }
        return (request, options, providerHeaders, credentials)
    }

    /// The request after the provider's `adapt(_:)`; what it throws becomes a ``NetworkError``
    /// that keeps a foreign error as `underlyingError` (a cancellation is `.cancelled`).
    private nonisolated(nonsending) static func adapt(_ request: PreparedRequest, with provider: any ServiceProvider) async throws(NetworkError) -> PreparedRequest {
        var outgoing = request.outgoing()
        do {
            try await provider.adapt(&outgoing)
        } catch {
            throw .thrown(error, by: "the provider's adapt(_:)", request: request.redactedDescription)
        }
        return try request.adapted(outgoing)
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

    /// The provider's headers; a failure that is not a ``NetworkError`` is wrapped in one that
    /// keeps it as `underlyingError` (a cancellation is `.cancelled`).
    private nonisolated(nonsending) static func headers(for snapshot: RequestSnapshot, redactor: Redactor) async throws(NetworkError) -> [String: String] {
        do {
            return try await snapshot.provider.createHTTPHeaders()
        } catch {
            throw .thrown(error, by: "the provider's createHTTPHeaders()", request: snapshot.describeUnprepared(with: redactor))
        }
    }

    /// The provider's `parseAndValidate`; what it throws becomes a ``NetworkError`` that carries
    /// the response and keeps a foreign error as `underlyingError`.
    private static func parse<Response: Decodable>(_ response: HTTPResponse, with provider: any ServiceProvider,
                                                   as type: Response.Type) throws(NetworkError) -> Response {
        do {
            return try provider.parseAndValidate(response, as: type)
        } catch {
            throw .thrown(error, by: "the provider's parseAndValidate", request: response.requestDescription, response: response)
        }
    }
}
