import Foundation

/// The step that turns a call into attempts and hops, OkHttp's RetryAndFollowUpInterceptor: each
/// attempt adapted by the interceptors, each hop handed on, and the outcome deciding what follows:
/// a redirect, a retry (token refresh, retry policy, interceptors, a resumed download), the result.
struct FollowUpStep: CallStep {
    struct State {
        var attempt = 1
        var redirects = 0
        var credentials: Authentication.Credentials?
        var hasRefreshed = false
    }

    /// Every attempt and hop of the call, until the outcome is its result.
    nonisolated(nonsending) func run(_ exchange: Exchange, rest: CallChain,
                                     sending hop: inout PreparedRequest?) async throws(NetworkError) -> HTTPResponse {
        let call = exchange.call
        let resolved = call.resolved
        let base = exchange.base
        var state = State(credentials: base.credentials)
        var prepared = exchange.request
        var attempt = try await Self.adapt(try Self.resumingIfAsked(prepared, for: resolved), for: resolved)
        var sent = exchange
        // With a cache, the cache step writes this line: only it knows whether the request goes out.
        if let log = resolved.log {
            if resolved.cache == nil {
                // A WebSocket is logged as a socket: no command line reproduces one.
                log.request(attempt, curl: resolved.webSocket != nil ? nil
                            : SigningStep.signed(attempt).commandLine(redactingSecrets: true))
            } else {
                sent.attemptLine = AttemptLine(log)
            }
        }
        var current = attempt
        var download = Self.firstDownload(for: resolved)
        while true {
            hop = current
            sent.request = current
            sent.download = download
            let outcome = await Self.send(sent, rest: rest, sending: &hop)
            // Whatever fails from here leaves no temporary file behind (a resumed download keeps its
            // file across attempts), but for the part of a download its error's resume data points to.
            do throws(NetworkError) {
                switch try await next(after: outcome, of: attempt, hop: current, exchange: sent, state: &state) {
                case .redirect(let next):
                    download?.discard()
                    download = Self.newDownload(for: resolved)
                    current = next
                case .result:
                    if resolved.reconnectPolicy != nil, let stream = outcome.stream {
                        stream.route = .init(chain: rest.fromFollowUp, observers: exchange.observers, changes: base.changes)
                    }
                    return try Self.finish(consume outcome, download: download, for: resolved)
                case .retry(let retry):
                    if retry.resumeOffset == nil {
                        download?.discard()
                        download = Self.newDownload(for: resolved)
                    }
                    try await Self.wait(retry, after: outcome, of: current, for: resolved)
                    attempt = try await nextAttempt(after: retry, from: base, prepared: &prepared, download: download,
                                                    call: call, state: &state)
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
    private nonisolated(nonsending) func nextAttempt(after retry: Retry, from base: CallBase, prepared: inout PreparedRequest,
                                                     download: PendingDownload?, call: CallContext,
                                                     state: inout State) async throws(NetworkError) -> PreparedRequest {
        state.attempt += 1
        let resolved = call.resolved
        if let fresh = try await resolved.authentication?.credentials(), fresh.token != state.credentials?.token {
            state.credentials = fresh
            prepared = try base.prepared(with: fresh, by: resolved)
        }
        var next = prepared.limited(to: call.remainingTime)
        if let offset = retry.resumeOffset, let validator = download?.validator {
            next = next.resuming(from: offset, ifRange: validator)
        }
        return try await Self.adapt(next, for: resolved)
    }

    /// The temporary file for a download's body; `nil` for a body in memory, a stream or a mock.
    static func newDownload(for resolved: ResolvedRequest) -> PendingDownload? {
        guard let destination = resolved.downloadDestination, resolved.streamKind == nil, !resolved.isMocked else { return nil }
        return PendingDownload(beside: destination)
    }

    enum Step {
        case redirect(PreparedRequest)
        case retry(Retry)
        case result
    }

    /// The step after `outcome`: the redirect policy's first, then the retry chain's.
    private nonisolated(nonsending) func next(after outcome: RequestOutcome, of attempt: PreparedRequest, hop: PreparedRequest,
                                              exchange: Exchange, state: inout State) async throws(NetworkError) -> Step {
        let call = exchange.call
        if let next = try Self.follow(outcome, from: hop, of: attempt, call: call, redirects: &state.redirects) {
            if !exchange.observers.isEmpty, case .response(let response) = outcome {
                let redirect = Redirect(from: hop.url, to: next.url, statusCode: response.statusCode)
                for observer in exchange.observers { observer.didRedirect(redirect) }
            }
            return .redirect(next)
        }
        guard let retry = try await decide(after: outcome, of: attempt, hop: hop, download: exchange.download, call: call,
                                           state: &state) else {
            return .result
        }
        for observer in exchange.observers { observer.willRetry(after: outcome, attempt: state.attempt, delay: retry.delay) }
        return .retry(retry)
    }

    // MARK: Steps

    /// The attempt after every interceptor's `adapt`: the manager's, the provider's and its
    /// `adapt(_:)` (at the provider's own origin only), the request's. What one of them throws,
    /// or sets that cannot be sent, fails the request before anything is sent.
    static nonisolated(nonsending) func adapt(_ request: PreparedRequest, for resolved: ResolvedRequest) async throws(NetworkError) -> PreparedRequest {
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
            try check(outgoing, adaptedBy: "the provider's adapt(_:)", of: request)
        }
        for interceptor in interceptors.request { try await adapt(&outgoing, by: interceptor, of: request) }
        return request.adapted(outgoing)
    }

    /// `outgoing` after `interceptor`'s `adapt`; what fails is the request's error, naming the interceptor.
    private static nonisolated(nonsending) func adapt(_ outgoing: inout OutgoingRequest, by interceptor: any RequestInterceptor,
                                                      of request: PreparedRequest) async throws(NetworkError) {
        do {
            try await interceptor.adapt(&outgoing)
        } catch {
            throw .thrown(error, by: Call.name(of: interceptor), request: request.redactedDescription)
        }
        try check(outgoing, adaptedBy: Call.name(of: interceptor), of: request)
    }

    /// Fails with ``NetworkError/invalidRequest(_:)`` when what `hook` changed in `outgoing` cannot be sent.
    private static func check(_ outgoing: OutgoingRequest, adaptedBy hook: @autoclosure () -> String,
                              of request: PreparedRequest) throws(NetworkError) {
        if let problem = outgoing.problem() {
            throw .invalidRequest(.init(request: request.redactedDescription, reason: "\(hook()) \(problem)"))
        }
    }

    /// One hop through the rest of the chain, as an outcome.
    @inline(__always)
    private static nonisolated(nonsending) func send(_ exchange: Exchange, rest: CallChain,
                                                     sending hop: inout PreparedRequest?) async -> RequestOutcome {
        do throws(NetworkError) {
            return .response(try await rest.proceed(exchange, sending: &hop))
        } catch {
            return .failure(error)
        }
    }

    /// The next hop when `outcome` is a redirect the policy follows; `nil` when it is the
    /// response. Throws when the redirect cannot be followed (too many, not http(s), a secret in
    /// the URL for another origin, a streamed body a 307/308 would send again).
    private static func follow(_ outcome: RequestOutcome, from hop: PreparedRequest, of attempt: PreparedRequest,
                               call: CallContext, redirects: inout Int) throws(NetworkError) -> PreparedRequest? {
        guard case .response(let response) = outcome, Call.isRedirect(response.statusCode),
              let location = response.redirectLocation else { return nil }
        let policy = call.resolved.redirectPolicy
        if case .none = policy { return nil }
        guard redirects < policy.limit else {
            throw .transport(.init(request: attempt.redactedDescription,
                                   reason: "the server redirected more than \(policy.limit) times"))
        }
        let next = try hop.redirected(to: location, status: response.statusCode, remainingTimeout: call.remainingTime, from: attempt)
        switch policy {
        case .sameOrigin:
            guard Origin(text: next.urlText) == Origin(text: attempt.urlText) else { return nil }
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

    /// The outcome as the request's result: a response (a download moved into place), or the failure.
    private static func finish(_ outcome: consuming RequestOutcome, download: PendingDownload?,
                               for resolved: ResolvedRequest) throws(NetworkError) -> HTTPResponse {
        switch consume outcome {  // moved out: a copy of a response retains each of its references
        case .failure(let error):
            throw error  // the caller keeps or removes the download's part
        case .response(let response):
            guard let download, let destination = resolved.downloadDestination else { return response }
            return try download.finish(response, at: destination)
        }
    }
}
