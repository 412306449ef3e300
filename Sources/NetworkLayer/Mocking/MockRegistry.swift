import Foundation

/// The mocks a manager answers from in code, checked before mock files, and the requests it
/// answered in mock mode: ``NetworkManager/mocks`` (`Net.mocks`).
///
/// ```swift
/// let net = NetworkManager()          // a manager of the test's own: tests can run in parallel
/// net.areMocksEnabled = true
/// net.mocks.register(ProfileRequest.self) { request in .json(Profile(name: "Ada")) }
/// net.mocks.register(.post, "/login", [.status(401), .json(Token(value: "t"))])   // then the last repeats
/// net.mocks.register(.get, "/down", .failure(.reachability))
///
/// let profile = try await net.perform(ProfileRequest())
/// #expect(net.mocks.requests.last?.value(forHeader: "Authorization") == "Bearer t")
/// ```
///
/// A request in mock mode is answered by, in order: a mock registered for its class (the most
/// specific, so a subclass's registration wins over its superclass's), a mock registered for its
/// ``BaseRequest/operationID``, a mock registered for its method and path, the file named by its
/// `mockedResponseFilename`, the file named by its operation ID, the `METHOD/path` file.
/// Nothing is ``NetworkError/mockNotFound(filename:)`` naming every place looked in.
///
/// Registrations and recorded requests belong to one manager: a test with a `NetworkManager()`
/// of its own sees nothing of another test's. Every method may be called from any thread at any
/// time; a request uses the registrations in force when it is answered. Registering again for
/// the same class, or the same method and path, replaces the earlier registration.
public final class MockRegistry: Sendable {
    private let state = Protected(State())

    /// How many recorded requests are kept: the newest 1,000, so that an app left running in
    /// mock mode does not grow without bound.
    public static let recordedRequestLimit = 1_000

    /// Creates an empty registry. Each manager has its own, ``NetworkManager/mocks``.
    public init() {}

    // MARK: - Registering

    /// Answers every request of class `requestType` (and of its subclasses without a registration
    /// of their own) with what `answer` returns for it.
    ///
    /// `answer` receives the request as it would go out (method, URL, headers, body), so one
    /// closure can answer several endpoints:
    ///
    /// ```swift
    /// Net.mocks.register(UserRequest.self) { request in
    ///     request.url.lastPathComponent == "7" ? .json(User(id: 7, name: "Ada")) : .status(404)
    /// }
    /// ```
    ///
    /// It is called on whatever thread answers the request, never while the registry is locked.
    public func register<Request: BaseRequest<Response>, Response>(
        _ requestType: Request.Type,
        answer: @escaping @Sendable (RecordedRequest) -> MockResponse
    ) {
        let registration = ClassRegistration(requestClass: requestType, name: String(describing: requestType),
                                              matches: { $0 is Request.Type }, answer: answer)
        state.withLock { state in
            state.classes.removeAll { ObjectIdentifier($0.requestClass) == ObjectIdentifier(requestType) }
            state.classes.append(registration)
        }
    }

    /// Answers every request with `method` and `path` with `response`.
    ///
    /// `path` is the URL's path (`/users/7`), or the endpoint's without the provider's
    /// `basePath`; escaped or not, with or without a trailing slash. The query is not compared,
    /// unless `path` has one (`/search?term=jazz`): then the request must carry exactly those
    /// query items, in any order, and such a registration is preferred to one without a query.
    /// The host is not compared: for two providers with the same path, register the full path
    /// (base path included, tried first), the request's class, or a closure reading the host.
    public func register(_ method: HTTPMethod, _ path: String, _ response: MockResponse) {
        register(method, path, answer: .sequence([response], next: 0))
    }

    /// Answers requests with `method` and `path` with each response of `sequence` in turn, then
    /// with the last one for every further request: `[.status(401), .json(token)]` rehearses a
    /// token refresh, `[.status(503), .status(503), .json(value)]` a retry policy. `path` is
    /// matched as for a single response. An empty sequence answers with
    /// ``NetworkError/invalidRequest(_:)``.
    public func register(_ method: HTTPMethod, _ path: String, _ sequence: [MockResponse]) {
        register(method, path, answer: .sequence(sequence, next: 0))
    }

    /// Answers requests with `method` and `path` with what `answer` returns for each (it receives
    /// the request as it would go out, e.g. to look at its query or body). `path` is matched as
    /// for a single response.
    public func register(_ method: HTTPMethod, _ path: String,
                         answer: @escaping @Sendable (RecordedRequest) -> MockResponse) {
        register(method, path, answer: .closure(answer))
    }

    /// Answers every request whose ``BaseRequest/operationID`` is `operationID` (an OpenAPI
    /// `operationId`: what a generated client's `NetworkLayerTransport` sets) with `response`.
    ///
    /// ```swift
    /// Net.mocks.register(operationID: "getGreeting", .json(["message": "Hello, Ada"]))
    /// ```
    ///
    /// Asked after the mocks registered for a request's class, before those for its method and path.
    public func register(operationID: String, _ response: MockResponse) {
        register(operationID: operationID, answer: .sequence([response], next: 0))
    }

    /// Answers requests of the operation `operationID` with each response of `sequence` in turn,
    /// then with the last one, as a sequence registered for a method and path does.
    public func register(operationID: String, _ sequence: [MockResponse]) {
        register(operationID: operationID, answer: .sequence(sequence, next: 0))
    }

    /// Answers requests of the operation `operationID` with what `answer` returns for each (it
    /// receives the request as it would go out).
    public func register(operationID: String, answer: @escaping @Sendable (RecordedRequest) -> MockResponse) {
        register(operationID: operationID, answer: .closure(answer))
    }

    private func register(operationID: String, answer: RouteAnswer) {
        state.withLock { $0.operations[operationID] = answer }
    }

    /// Answers what nothing else matched: asked after the mocks registered for the request's
    /// class and for its method and path, and after the mock files; `nil` means "not found"
    /// (``NetworkError/mockNotFound(filename:)``, naming every place looked). One fallback at a
    /// time: registering another replaces it.
    ///
    /// ```swift
    /// Net.mocks.registerFallback { request in
    ///     request.url.path.hasPrefix("/v1/") ? .status(404) : nil
    /// }
    /// ```
    ///
    /// It is called on whatever thread answers the request, never while the registry is locked.
    public func registerFallback(_ answer: @escaping @Sendable (RecordedRequest) -> MockResponse?) {
        state.withLock { $0.fallback = answer }
    }

    /// The fallback's answer for `recorded`, or `nil` (none registered, or it answered `nil`).
    func fallbackResponse(for recorded: RecordedRequest) -> MockResponse? {
        state.withLock { $0.fallback }?(recorded)
    }

    /// Whether a fallback is registered.
    var hasFallback: Bool { state.withLock { $0.fallback != nil } }

    private func register(_ method: HTTPMethod, _ path: String, answer: RouteAnswer) {
        let route = Route(method: method, registeredPath: path)
        state.withLock { $0.routes[route] = answer }
    }

    /// Removes every registration (the fallback too) and every recorded request.
    public func removeAll() {
        state.withLock { $0 = State() }
    }

    // MARK: - Recorded requests

    /// Every request answered in mock mode, oldest first, as it would have gone out (after the
    /// provider's headers, the credentials and `adapt(_:)`; each attempt of a retried request).
    /// The newest ``recordedRequestLimit`` (1,000) are kept. See ``RecordedRequest``.
    public var requests: [RecordedRequest] {
        state.withLock { $0.requests }
    }

    /// The messages mocked WebSockets carried, oldest first, each as the client sent or read it.
    /// The newest ``recordedRequestLimit`` (1,000) are kept.
    public var webSocketMessages: [RecordedWebSocketMessage] {
        state.withLock { $0.webSocketMessages }
    }

    /// Keeps a mocked WebSocket's message, dropping the oldest beyond the limit.
    func recordWebSocket(_ message: RecordedWebSocketMessage) {
        state.withLock { state in
            state.webSocketMessages.append(message)
            if state.webSocketMessages.count > Self.recordedRequestLimit { state.webSocketMessages.removeFirst() }
        }
    }

    /// Keeps `request` as answered, dropping the oldest beyond the limit.
    func record(_ request: RecordedRequest) {
        state.withLock { state in
            state.requests.append(request)
            if state.requests.count > Self.recordedRequestLimit {
                state.requests.removeFirst(state.requests.count - Self.recordedRequestLimit)
            }
        }
    }

    // MARK: - Answering

    /// The registered response for `request` (of class `requestClass`, recorded as `recorded`)
    /// with the name of its registration, or `nil` when none matches. A sequence moves on by one.
    ///
    /// - Throws: ``NetworkError/invalidRequest`` for an empty sequence.
    func response(for request: PreparedRequest, recorded: RecordedRequest) throws(NetworkError) -> (MockResponse, source: String)? {
        let requestClass: AnyObject.Type = request.resolved.requestClass
        let byClass: ClassRegistration? = state.withLock { state in
            var best: ClassRegistration?
            for registration in state.classes where registration.matches(requestClass) {
                // A registration for a subclass of the best so far is more specific.
                if best.map({ $0.matches(registration.requestClass) }) ?? true { best = registration }
            }
            return best
        }
        if let byClass {
            return (byClass.answer(recorded), "the mock registered for \(byClass.name)")
        }
        if let operationID = request.resolved.operationID {
            let found = state.withLock { state in RouteAnswer.take(&state.operations[operationID]) }
            if let found {
                return try found.response(for: request, recorded: recorded, source: "the mock registered for operation \(operationID)")
            }
        }
        for route in Route.candidates(for: request) {
            let found = state.withLock { state in RouteAnswer.take(&state.routes[route]) }
            if let found {
                return try found.response(for: request, recorded: recorded, source: "the mock registered for \(route)")
            }
        }
        return nil
    }

    /// The registrations a request was looked up under, for ``NetworkError/mockNotFound(filename:)``.
    static func placesLooked(for request: PreparedRequest) -> [String] {
        let path = Route.normalized(Substring(request.url.path(percentEncoded: true)))
        return [String(describing: request.resolved.requestClass)] + (request.resolved.operationID.map { ["operation \($0)"] } ?? [])
            + ["\(Route(method: request.method, path: path, query: nil))"]
    }

    // MARK: - State

    private struct State: Sendable {
        var classes: [ClassRegistration] = []
        var routes: [Route: RouteAnswer] = [:]
        var operations: [String: RouteAnswer] = [:]
        var requests: [RecordedRequest] = []
        var fallback: (@Sendable (RecordedRequest) -> MockResponse?)?
        var webSocketMessages: [RecordedWebSocketMessage] = []
    }

    private struct ClassRegistration: Sendable {
        let requestClass: AnyObject.Type
        let name: String
        /// Whether a class is this one or a subclass of it.
        let matches: @Sendable (AnyObject.Type) -> Bool
        let answer: @Sendable (RecordedRequest) -> MockResponse
    }

    private enum RouteAnswer: Sendable {
        case sequence([MockResponse], next: Int)
        case closure(@Sendable (RecordedRequest) -> MockResponse)

        /// The registration in `slot`, a sequence moved on by one for the next request.
        static func take(_ slot: inout RouteAnswer?) -> RouteAnswer? {
            guard let answer = slot else { return nil }
            if case .sequence(let responses, let next) = answer, next + 1 < responses.count {
                slot = .sequence(responses, next: next + 1)
            }
            return answer
        }

        /// The response this registration gives `recorded`, named by `source`.
        func response(for request: PreparedRequest, recorded: RecordedRequest, source: String) throws(NetworkError) -> (MockResponse, source: String) {
            switch self {
            case .closure(let answer): return (answer(recorded), source)
            case .sequence(let responses, let next):
                guard responses.indices.contains(next) else {
                    throw .invalidRequest(.init(request: request.redactedDescription, reason: "\(source) is an empty sequence"))
                }
                return (responses[next], source)
            }
        }
    }
}
