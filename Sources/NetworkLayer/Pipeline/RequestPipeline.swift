import Foundation

/// A request's way from its resolved settings to its value: one loop over attempts and hops, each
/// step decided by the outcome of the last, inside the middlewares; then the steps after them.
///
///     prepare (provider headers, credentials) → middlewares (around all that follows, to the response)
///       → adapt (interceptors, each attempt) → send one hop (libcurl, the cache or mocks)
///       → redirect? (the policy) → next hop
///       → retry? (token refresh, retry policy, interceptors) → next attempt
///       → the final response (a download moved into place)
///     → recorded (the log, record mode) → validated → parsed (RequestPipeline+Value.swift)
///
/// Bounds no setting lifts: at most ``RedirectPolicy/maximumRedirects`` redirects per request, no
/// attempt after the request's total timeout, a streamed body sent once, a retry's wait within
/// 0 … 1 day, secrets left behind when a hop or an attempt changes origin.
struct RequestPipeline {
    let resolved: ResolvedRequest
    let transport: any Transport
    /// When the request started: its timeout counts from here, across attempts and redirects.
    let started: ContinuousClock.Instant
    /// What the middlewares watching this run asked to be told; `nil` without any.
    var observers: [any RequestObserver]? = nil

    struct State {
        var attempt = 1
        var redirects = 0
        var credentials: Authentication.Credentials?
        var hasRefreshed = false
    }

    /// The first attempt as prepared, and what a token refresh needs to prepare it again.
    struct Base {
        let prepared: PreparedRequest
        let providerHeaders: [String: String]
        let credentials: Authentication.Credentials?
        /// What the middlewares changed, replayed on a request prepared again with fresh credentials.
        var changes: MiddlewareChanges?

        func prepared(with credentials: Authentication.Credentials, by resolved: ResolvedRequest) throws(NetworkError) -> PreparedRequest {
            let fresh = try resolved.prepare(providerHeaders: providerHeaders, credentials: credentials)
            guard let changes else { return fresh }
            return fresh.adapted(changes.request.replayed(on: fresh.outgoing()))
        }
    }

    final class MiddlewareChanges: Sendable {
        let request: OutgoingRequest
        init(_ request: OutgoingRequest) { self.request = request }
    }

    /// The final response. `sending` is the hop being sent (then the one that got the response),
    /// for the error and the log to describe: `nil` until the request is prepared.
    nonisolated(nonsending) func run(sending hop: inout PreparedRequest?) async throws(NetworkError) -> HTTPResponse {
        let providerHeaders = try await self.providerHeaders()
        let credentials = try await resolved.authentication?.credentials()
        let prepared = try resolved.prepare(providerHeaders: providerHeaders, credentials: credentials)
        hop = prepared
        if let log = resolved.log, !resolved.isMocked { Self.logRouting(of: prepared, to: log) }
        let base = Base(prepared: prepared, providerHeaders: providerHeaders, credentials: credentials)
        if resolved.middlewares.isEmpty { return try await attempts(from: base, sending: &hop) }
        return try await aroundMiddlewares(base, sending: &hop)
    }

    /// Every attempt and hop of the call from `base`, until the outcome is its result.
    @inline(__always)
    nonisolated(nonsending) func attempts(from base: Base, sending hop: inout PreparedRequest?) async throws(NetworkError) -> HTTPResponse {
        var state = State(credentials: base.credentials)
        var prepared = base.prepared
        var attempt = try await adapt(try resumingIfAsked(prepared))
        // With a cache, the cache step writes this line: only it knows whether the request goes out.
        if resolved.cache == nil { resolved.log?.request(attempt, curl: CurlCommand.render(TransferPlan(attempt), redactingSecrets: true)) }
        var current = attempt
        var download = firstDownload()
        while true {
            hop = current
            let outcome = await send(current, download: download)
            // Whatever fails from here leaves no temporary file behind (a resumed download keeps its
            // file across attempts), but for the part of a download its error's resume data points to.
            do throws(NetworkError) {
                switch try await next(after: outcome, of: attempt, hop: current, download: download, state: &state) {
                case .redirect(let next):
                    download?.discard()
                    download = newDownload()
                    current = next
                case .result:
                    if resolved.reconnectPolicy != nil, let stream = outcome.stream {
                        stream.route = .init(transport: transport, observers: observers, changes: base.changes)
                    }
                    return try finish(consume outcome, download: download)
                case .retry(let retry):
                    if retry.resumeOffset == nil {
                        download?.discard()
                        download = newDownload()
                    }
                    try await wait(retry, after: outcome, of: current, state.attempt)
                    attempt = try await nextAttempt(after: retry, from: base, prepared: &prepared, download: download, state: &state)
                    current = attempt
                }
            } catch {
                // A download that can be continued keeps its part, and says where it stopped.
                throw download?.abandon(after: error, of: prepared) ?? error
            }
        }
    }

    /// The attempt after `retry`'s wait: counted; prepared again when the credentials changed (a
    /// refreshed token, with the middlewares' changes replayed); limited to the time left;
    /// continuing a download where the last attempt stopped; adapted by the interceptors.
    private nonisolated(nonsending) func nextAttempt(after retry: Retry, from base: Base, prepared: inout PreparedRequest,
                                                     download: PendingDownload?, state: inout State) async throws(NetworkError) -> PreparedRequest {
        state.attempt += 1
        if let fresh = try await resolved.authentication?.credentials(), fresh.token != state.credentials?.token {
            state.credentials = fresh
            prepared = try base.prepared(with: fresh, by: resolved)
        }
        var next = prepared.limited(to: remainingTime)
        if let offset = retry.resumeOffset, let validator = download?.validator {
            next = next.resuming(from: offset, ifRange: validator)
        }
        return try await adapt(next)
    }

    /// The temporary file for a download's body; `nil` when the body stays in memory, streams or is mocked.
    func newDownload() -> PendingDownload? {
        guard let destination = resolved.downloadDestination, resolved.streamKind == nil, !resolved.isMocked else { return nil }
        return PendingDownload(beside: destination)
    }

    /// The first attempt as it would be sent now (prepared and adapted), for copy-as-curl.
    nonisolated(nonsending) func firstAttempt() async throws(NetworkError) -> PreparedRequest {
        let credentials = try await resolved.authentication?.credentials()
        return try await adapt(try resolved.prepare(providerHeaders: try await providerHeaders(), credentials: credentials))
    }

    enum Step {
        case redirect(PreparedRequest)
        case retry(Retry)
        case result
    }

    /// The step after `outcome`: the redirect policy's first, then the retry chain's.
    private nonisolated(nonsending) func next(after outcome: RequestOutcome, of attempt: PreparedRequest, hop: PreparedRequest,
                                              download: PendingDownload?, state: inout State) async throws(NetworkError) -> Step {
        if let next = try follow(outcome, from: hop, of: attempt, redirects: &state.redirects) {
            if let observers, case .response(let response) = outcome {
                let redirect = Redirect(from: hop.url, to: next.url, statusCode: response.statusCode)
                for observer in observers { observer.didRedirect(redirect) }
            }
            return .redirect(next)
        }
        guard let retry = try await decide(after: outcome, of: attempt, hop: hop, download: download, state: &state) else {
            return .result
        }
        if let observers {
            for observer in observers { observer.willRetry(after: outcome, attempt: state.attempt, delay: retry.delay) }
        }
        return .retry(retry)
    }

    /// The log's note on where a request really connects: a host override's address, or a pinned
    /// host reached over a Unix socket without TLS.
    private static func logRouting(of request: PreparedRequest, to log: NetworkLog) {
        let options = request.resolved.options
        if let overrides = options.hostOverrides, let host = request.url.host,
           case let port = request.url.port ?? (request.url.scheme == "https" ? 443 : 80), let target = overrides.target(host: host, port: port) {
            // The override's own name (checked when set: letters, digits, '-', '.', or an IPv6 address in brackets).
            log.note("\(target.host):\(port) connects to \(target.targetHost):\(target.targetPort) (a host override); "
                     + "TLS, pins and cookies go by \(target.host)", of: request)
        }
        if options.unixSocketPath != nil, let note = TransferPlan(request).options.unpinnedSocketNote(for: request) {
            log.note(note, of: request)
        }
    }

    var remainingTime: TimeInterval {
        resolved.timeout - (ContinuousClock.now - started).seconds
    }

    // MARK: Steps

    /// The provider's headers; a failure that is not a ``NetworkError`` is wrapped in one that
    /// keeps it as `underlyingError` (a cancellation is `.cancelled`).
    nonisolated(nonsending) func providerHeaders() async throws(NetworkError) -> [String: String] {
        do {
            return try await resolved.provider.createHTTPHeaders()
        } catch {
            throw .thrown(error, by: "the provider's createHTTPHeaders()", request: resolved.describeUnprepared())
        }
    }

    /// The attempt after every interceptor's `adapt`: the manager's, the provider's and its
    /// `adapt(_:)` (at the provider's own origin only), the request's. What one of them throws,
    /// or sets that cannot be sent, fails the request before anything is sent.
    nonisolated(nonsending) func adapt(_ request: PreparedRequest) async throws(NetworkError) -> PreparedRequest {
        let interceptors = resolved.interceptors
        var outgoing = request.outgoing()
        for interceptor in interceptors.manager { try await adapt(&outgoing, by: interceptor, of: request) }
        if outgoing.isAtProviderOrigin {
            for interceptor in interceptors.provider { try await adapt(&outgoing, by: interceptor, of: request) }
            do {
                try await resolved.provider.adapt(&outgoing)
            } catch {
                throw .thrown(error, by: "the provider's adapt(_:)", request: request.redactedDescription)
            }
            try Self.check(outgoing, adaptedBy: "the provider's adapt(_:)", of: request)
        }
        for interceptor in interceptors.request { try await adapt(&outgoing, by: interceptor, of: request) }
        return request.adapted(outgoing)
    }

    /// `outgoing` after `interceptor`'s `adapt`; what fails is the request's error, naming the interceptor.
    private nonisolated(nonsending) func adapt(_ outgoing: inout OutgoingRequest, by interceptor: any RequestInterceptor,
                                               of request: PreparedRequest) async throws(NetworkError) {
        do {
            try await interceptor.adapt(&outgoing)
        } catch {
            throw .thrown(error, by: Self.name(of: interceptor), request: request.redactedDescription)
        }
        try Self.check(outgoing, adaptedBy: Self.name(of: interceptor), of: request)
    }

    /// Fails with ``NetworkError/invalidRequest(_:)`` when what `hook` changed in `outgoing` cannot be sent.
    private static func check(_ outgoing: OutgoingRequest, adaptedBy hook: @autoclosure () -> String,
                              of request: PreparedRequest) throws(NetworkError) {
        if let problem = outgoing.problem() {
            throw .invalidRequest(.init(request: request.redactedDescription, reason: "\(hook()) \(problem)"))
        }
    }

    /// One hop through the transport, as an outcome; a download's body goes to `download`, which
    /// the caller moves into place, keeps for a resume, or discards.
    private nonisolated(nonsending) func send(_ hop: PreparedRequest, download: PendingDownload?) async -> RequestOutcome {
        do throws(NetworkError) {
            return .response(try await transport.send(hop, download: download))
        } catch {
            return .failure(error)
        }
    }

    /// The next hop when `outcome` is a redirect the policy follows; `nil` when it is the
    /// response. Throws when the redirect cannot be followed (too many, not http(s), a secret in
    /// the URL for another origin, a streamed body a 307/308 would send again).
    private func follow(_ outcome: RequestOutcome, from hop: PreparedRequest, of attempt: PreparedRequest,
                        redirects: inout Int) throws(NetworkError) -> PreparedRequest? {
        guard case .response(let response) = outcome, Self.isRedirect(response.statusCode),
              let location = response.redirectLocation else { return nil }
        let policy = resolved.redirectPolicy
        if case .none = policy { return nil }
        guard redirects < policy.limit else {
            throw .transport(.init(request: attempt.redactedDescription,
                                   reason: "the server redirected more than \(policy.limit) times"))
        }
        let next = try hop.redirected(to: location, status: response.statusCode, remainingTimeout: remainingTime, from: attempt)
        switch policy {
        case .sameOrigin:
            guard Origin(next.url) == Origin(attempt.url) else { return nil }
        case .custom(let follows):
            redirects += 1  // a call counts, followed or not: at most 10 per request
            guard follows(Redirect(from: hop.url, to: next.url, statusCode: response.statusCode)) else { return nil }
            redirects -= 1
        case .follow, .none:
            break
        }
        redirects += 1
        // 307 and 308 (301 and 302 but for a POST) keep the body: a streamed one cannot go again.
        if next.sendsBodyOnce {
            throw hop.cannotSendBodyAgain(after: response, "the server redirected with \(response.statusCode)")
        }
        return next
    }

    /// Whether `status` is a redirect (301, 302, 303, 307, 308).
    static func isRedirect(_ status: Int) -> Bool {
        switch status {
        case 301, 302, 303, 307, 308: true
        default: false
        }
    }

    /// The outcome as the request's result: a response (a download moved into place), or the failure.
    private func finish(_ outcome: consuming RequestOutcome, download: PendingDownload?) throws(NetworkError) -> HTTPResponse {
        switch consume outcome {  // moved out: a copy of a response retains each of its references
        case .failure(let error):
            throw error  // the caller keeps or removes the download's part
        case .response(let response):
            guard let download, let destination = resolved.downloadDestination else { return response }
            return try download.finish(response, at: destination)
        }
    }

    static func name(of interceptor: any RequestInterceptor) -> String {
        "the interceptor \(HeaderFields.printable(String(describing: type(of: interceptor))))"
    }
}

extension RequestOutcome {
    func get() throws(NetworkError) -> HTTPResponse {
        switch self {
        case .response(let response): response
        case .failure(let error): throw error
        }
    }

    var stream: StreamBody? {
        if case .response(let response) = self { return response.stream }
        return nil
    }
}
