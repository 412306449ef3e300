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
/// A request in mock mode is answered by, in order: a mock registered for its class (a subclass's
/// registration wins over its superclass's), for its ``BaseRequest/operationID``, for its method
/// and path, then the mock files; nothing is ``NetworkError/mockNotFound(filename:)``.
///
/// Registrations and recorded requests belong to one manager. Every method may be called from any
/// thread; registering again for the same key replaces the earlier registration.
public final class MockRegistry: Sendable {
    private let state = Protected(State())
    /// What mock mode used, for ``coverage``.
    let usage = MockUsage()

    /// How many recorded requests are kept (the newest), so mock mode does not grow without bound.
    public static let recordedRequestLimit = 1_000

    public init() {}

    // MARK: - Registering

    /// Answers every request of class `requestType` (and of its subclasses without a registration
    /// of their own) with what `answer` returns for it. `answer` is called on whatever thread answers
    /// the request, never while the registry is locked.
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
    /// `path` is the URL's path, or the endpoint's without the provider's `basePath`. The query is not
    /// compared unless `path` has one: then the request must carry exactly those items, in any order,
    /// and that registration is preferred. The host is not compared.
    public func register(_ method: HTTPMethod, _ path: String, _ response: MockResponse) {
        register(method, path, answer: .sequence([response], next: 0))
    }

    /// Answers requests with `method` and `path` with each response of `sequence` in turn, then
    /// with the last one for every further request. An empty sequence answers with
    /// ``NetworkError/invalidRequest(_:)``.
    public func register(_ method: HTTPMethod, _ path: String, _ sequence: [MockResponse]) {
        register(method, path, answer: .sequence(sequence, next: 0))
    }

    /// Answers requests with `method` and `path` with what `answer` returns for each.
    public func register(_ method: HTTPMethod, _ path: String,
                         answer: @escaping @Sendable (RecordedRequest) -> MockResponse) {
        register(method, path, answer: .closure(answer))
    }

    /// Answers every request whose ``BaseRequest/operationID`` is `operationID` with `response`.
    /// Asked after the mocks registered for a request's class, before those for its method and path.
    public func register(operationID: String, _ response: MockResponse) {
        register(operationID: operationID, answer: .sequence([response], next: 0))
    }

    /// Answers requests of the operation `operationID` with each response of `sequence` in turn.
    public func register(operationID: String, _ sequence: [MockResponse]) {
        register(operationID: operationID, answer: .sequence(sequence, next: 0))
    }

    /// Answers requests of the operation `operationID` with what `answer` returns for each.
    public func register(operationID: String, answer: @escaping @Sendable (RecordedRequest) -> MockResponse) {
        register(operationID: operationID, answer: .closure(answer))
    }

    private func register(operationID: String, answer: RouteAnswer) {
        state.withLock { $0.operations[operationID] = answer }
    }

    /// Answers what nothing else matched, mock files included; `nil` means not found. One fallback
    /// at a time. Called on whatever thread answers the request, never while the registry is locked.
    public func registerFallback(_ answer: @escaping @Sendable (RecordedRequest) -> MockResponse?) {
        state.withLock { $0.fallback = answer }
    }

    func fallbackResponse(for recorded: RecordedRequest) -> MockResponse? {
        state.withLock { $0.fallback }?(recorded)
    }

    var hasFallback: Bool { state.withLock { $0.fallback != nil } }

    private func register(_ method: HTTPMethod, _ path: String, answer: RouteAnswer) {
        let route = Route(method: method, registeredPath: path)
        state.withLock { $0.routes[route] = answer }
    }

    /// Removes every registration, the fallback, every recorded request, and what ``coverage`` saw.
    public func removeAll() {
        state.withLock { $0 = State() }
        usage.reset()
    }

    // MARK: - Coverage

    /// What the mocks covered since this manager started (or since ``removeAll()``): registrations
    /// and mock files never used, and requests that found no mock. Read it after a test run.
    public var coverage: MockCoverage {
        let registered = state.withLock { state in
            state.classes.map(\.name) + state.operations.keys.map { "operation \($0)" } + state.routes.keys.map { "\($0)" }
        }
        return usage.coverage(registered: registered)
    }

    // MARK: - Recorded requests

    /// Every request answered in mock mode, oldest first, as it would have gone out (each attempt of
    /// a retried request). The newest ``recordedRequestLimit`` are kept.
    public var requests: [RecordedRequest] {
        state.withLock { $0.requests }
    }

    /// The messages mocked WebSockets carried, oldest first; the newest ``recordedRequestLimit`` are kept.
    public var webSocketMessages: [RecordedWebSocketMessage] {
        state.withLock { $0.webSocketMessages }
    }

    func recordWebSocket(_ message: RecordedWebSocketMessage) {
        state.withLock { state in
            state.webSocketMessages.append(message)
            if state.webSocketMessages.count > Self.recordedRequestLimit { state.webSocketMessages.removeFirst() }
        }
    }

    func record(_ request: RecordedRequest) {
        state.withLock { state in
            state.requests.append(request)
            if state.requests.count > Self.recordedRequestLimit {
                state.requests.removeFirst(state.requests.count - Self.recordedRequestLimit)
            }
        }
    }

    // MARK: - Answering

    /// The registered response for `request` with the name of its registration, or `nil`.
    /// A sequence moves on by one.
    func response(for request: PreparedRequest, recorded: RecordedRequest) throws(NetworkError) -> (MockResponse, source: String)? {
        let requestClass: AnyObject.Type = request.resolved.requestClass
        let byClass: ClassRegistration? = state.withLock { state in
            var best: ClassRegistration?
            for registration in state.classes where registration.matches(requestClass) {
                if best.map({ $0.matches(registration.requestClass) }) ?? true { best = registration }
            }
            return best
        }
        if let byClass {
            usage.used(registration: byClass.name)
            return (byClass.answer(recorded), "the mock registered for \(byClass.name)")
        }
        if let operationID = request.resolved.operationID {
            let found = state.withLock { state in RouteAnswer.take(&state.operations[operationID]) }
            if let found {
                usage.used(registration: "operation \(operationID)")
                return try found.response(for: request, recorded: recorded, source: "the mock registered for operation \(operationID)")
            }
        }
        for route in Route.candidates(for: request) {
            let found = state.withLock { state in RouteAnswer.take(&state.routes[route]) }
            if let found {
                usage.used(registration: "\(route)")
                return try found.response(for: request, recorded: recorded, source: "the mock registered for \(route)")
            }
        }
        return nil
    }

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
        let matches: @Sendable (AnyObject.Type) -> Bool
        let answer: @Sendable (RecordedRequest) -> MockResponse
    }

    private enum RouteAnswer: Sendable {
        case sequence([MockResponse], next: Int)
        case closure(@Sendable (RecordedRequest) -> MockResponse)

        /// The registration in `slot`; a sequence moves on by one for the next request.
        static func take(_ slot: inout RouteAnswer?) -> RouteAnswer? {
            guard let answer = slot else { return nil }
            if case .sequence(let responses, let next) = answer, next + 1 < responses.count {
                slot = .sequence(responses, next: next + 1)
            }
            return answer
        }

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
