import Foundation

/// The shared manager, `NetworkManager.shared` by its short name.
public let Net = NetworkManager.shared

/// Runs every request: live through libcurl, or from mock files in mock mode. Its settings can be
/// changed from any thread; a request uses those in force when it starts. A provider's setting wins
/// over the manager's, and a request's over both.
public final class NetworkManager: Sendable {
    /// The manager every request goes through.
    public static let shared = NetworkManager()

    let settings: Protected<Settings>

    /// The subscriptions to this manager's ``CallEvent``s (NetworkManager+Events.swift).
    let eventHub: CallEventHub

    /// The mocks this manager answers from in code, and the requests it answered in mock mode.
    public let mocks = MockRegistry()

    /// Where this manager's pinning reports go.
    let pinningMonitor = PinningMonitor()

    /// Circuits and answer times per origin, for breakers and hedging.
    let health = OriginHealth()

    /// Creates a manager with its own settings. All managers share one libcurl engine and its connections.
    public init() {
        let settings = Protected(Settings())
        self.settings = settings
        eventHub = CallEventHub(settings: settings)
    }

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

    /// The request's way: its call, from its settings down its chain to its value (``Call/value(parser:sending:)``).
    /// A failure's texts are scrubbed of the request's secrets here, whoever wrote them, and logged.
    func execute<Response: Decodable & Sendable>(_ resolved: ResolvedRequest, parser: (@Sendable (HTTPResponse) throws -> Response)?)
        async throws(NetworkError) -> (value: Response, response: HTTPResponse)
    {
        let call = Call(resolved, chain: CallChain(for: resolved, mocks: mocks, health: health))
        var sent: PreparedRequest?
        defer { resolved.progress?.finish?() }
        let events = resolved.events
        events?.emit(.callStart, at: call.started)
        do throws(NetworkError) {
            if Task.isCancelled { throw .cancelled(.init(request: resolved.describeUnprepared(), reason: "it was cancelled before it started")) }
            let value = try await call.value(parser: parser, sending: &sent)
            events?.emit(.callEnd)
            return value
        } catch {
            let error = sent.map { error.describingRequest($0.redactedDescription).redactingSecrets($0.redactor.secretValues(of: $0)) }
                ?? error.describingRequest(resolved.describeUnprepared())
            resolved.log?.failure(error, of: sent, resolved: resolved, elapsed: call.started.duration(to: .now))
            events?.emit(.callFailed(error))
            throw error
        }
    }

    /// The request as an equivalent `curl` command line. Secrets read `<redacted>` unless
    /// `redactingSecrets` is `false` (never log that form).
    public func curlCommand<Response>(for request: BaseRequest<Response>, redactingSecrets: Bool = true,
                                      isolation: isolated (any Actor)? = #isolation) async throws(NetworkError) -> String {
        let resolved = request.resolved(with: settings.withLock { $0 })
        let attempt = try await Call(resolved, chain: CallChain(for: resolved, mocks: mocks, health: health)).firstAttempt()
        return attempt.commandLine(redactingSecrets: redactingSecrets)
    }
}
