import Foundation

/// A request's way from its resolved settings to its value: prepared once, run down its
/// ``CallChain``, then recorded, validated and parsed (Call+Value.swift). Bounds no setting lifts:
/// at most ``RedirectPolicy/maximumRedirects`` redirects, no attempt after the request's timeout,
/// a streamed body sent once, a retry's wait within a day, secrets left behind at another origin.
struct Call {
    let context: CallContext
    let chain: CallChain

    init(_ resolved: ResolvedRequest, chain: CallChain, started: ContinuousClock.Instant = .now) {
        context = CallContext(resolved: resolved, started: started)
        self.chain = chain
    }

    var resolved: ResolvedRequest { context.resolved }
    var started: ContinuousClock.Instant { context.started }

    /// The final response. `sending` is the hop being sent (then the one that got the response),
    /// for the error and the log to describe: `nil` until the request is prepared.
    nonisolated(nonsending) func run(sending hop: inout PreparedRequest?) async throws(NetworkError) -> HTTPResponse {
        let base = try await prepare()
        hop = base.prepared
        if let log = resolved.log, !resolved.isMocked { Self.logRouting(of: base.prepared, to: log) }
        return try await chain.proceed(Exchange(request: base.prepared, base: base, call: context), sending: &hop)
    }

    /// The first attempt as prepared: the provider's headers and the credentials first.
    @inline(__always)
    nonisolated(nonsending) func prepare(replaying changes: MiddlewareChanges? = nil) async throws(NetworkError) -> CallBase {
        let providerHeaders = try await self.providerHeaders()
        let credentials = try await resolved.authentication?.credentials()
        var prepared = try resolved.prepare(providerHeaders: providerHeaders, credentials: credentials)
        if let changes { prepared = prepared.adapted(changes.request.replayed(on: prepared.outgoing())) }
        return CallBase(prepared: prepared, providerHeaders: providerHeaders, credentials: credentials, changes: changes)
    }

    /// The first attempt as it would be sent now (prepared, adapted and signed), for copy-as-curl.
    nonisolated(nonsending) func firstAttempt() async throws(NetworkError) -> PreparedRequest {
        SigningStep.signed(try await FollowUpStep.adapt(try await prepare().prepared, for: resolved))
    }

    /// The provider's headers; a failure that is not a ``NetworkError`` is wrapped in one that
    /// keeps it as `underlyingError` (a cancellation is `.cancelled`).
    nonisolated(nonsending) func providerHeaders() async throws(NetworkError) -> [String: String] {
        do {
            return try await resolved.provider.createHTTPHeaders()
        } catch {
            throw .thrown(error, by: "the provider's createHTTPHeaders()", request: resolved.describeUnprepared())
        }
    }

    /// The log's note on where a request really connects: a host override's or a resolve entry's
    /// address, the DNS over HTTPS resolver, or a pinned host reached over a Unix socket without TLS.
    private static func logRouting(of request: PreparedRequest, to log: NetworkLog) {
        let options = request.resolved.options
        if let overrides = options.hostOverrides, let host = request.url.host,
           case let port = request.url.port ?? (request.url.scheme == "https" ? 443 : 80), let target = overrides.target(host: host, port: port) {
            // The override's own name (checked when set: letters, digits, '-', '.', or an IPv6 address in brackets).
            log.note("\(target.host):\(port) connects to \(target.targetHost):\(target.targetPort) (a host override); "
                     + "TLS, pins and cookies go by \(target.host)", of: request)
        }
        if !options.table.resolve.isEmpty, let host = request.url.host,
           case let port = request.url.port ?? (request.url.scheme == "https" ? 443 : 80),
           let entry = options.table.resolve.first(where: { $0.port == port && $0.host.lowercased() == host.lowercased() }) {
            // Checked when the request was prepared: a host name and IP addresses.
            log.note("\(entry.host):\(port) resolves to \(entry.addresses.joined(separator: ", ")) (a resolve entry); "
                     + "TLS, pins and cookies go by \(entry.host)", of: request)
        }
        if let resolver = options.table.dnsOverHTTPS, let host = request.url.host {
            log.note("\(host) resolves through the DNS over HTTPS resolver \(CurlErrorMapping.origin(of: resolver))", of: request)
        }
        if options.unixSocketPath != nil, let note = request.wireOptions.unpinnedSocketNote(for: request) {
            log.note(note, of: request)
        }
    }

    /// Whether `status` is a redirect (301, 302, 303, 307, 308).
    static func isRedirect(_ status: Int) -> Bool {
        switch status {
        case 301, 302, 303, 307, 308: true
        default: false
        }
    }

    static func cause(of outcome: RequestOutcome) -> String {
        switch outcome {
        case .response(let response): "status \(response.statusCode)"
        case .failure(let error): error.context?.reason ?? error.errorDescription ?? "\(error)"
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
