import Foundation
import Synchronization

/// The response cache, OkHttp's `CacheInterceptor`: each hop is answered, revalidated or stored
/// under its own URL (a cached `301`/`308` followed from the cache), a caller's own conditional
/// `304` passes untouched, and `Vary` selects on the headers libcurl adds too.
struct CacheStep: CallStep {
    let caching: RequestCaching

    nonisolated(nonsending) func run(_ exchange: Exchange, rest: CallChain,
                                     sending _: inout PreparedRequest?) async throws(NetworkError) -> HTTPResponse {
        let network = Network(exchange: exchange, rest: rest)
        let hop = exchange.request
        let attemptLine = exchange.attemptLine
        // A GET with a body is keyed by its URL alone: it would be answered for another body.
        guard !caching.isBypassed, !(hop.method == .get && hop.body != nil) else {
            return try await bypass(hop, download: exchange.download, network: network, attemptLine: attemptLine)
        }
        let request = CacheRequest(hop, caching: caching)
        let policy = caching.policy
        // A hit a disk cache holds decoded is answered here; anything needing file work goes to its queue.
        let lookup: CacheLookup
        if let answer = caching.store.lookupWithoutBlocking(request, policy: policy, now: Date()) {
            lookup = answer
        } else {
            lookup = try await caching.store.perform { $0.lookup(request, policy: policy, now: Date()) }
        }
        switch lookup {
        case .fresh(let stored):
            attemptLine?.write(hop, note: "answered from the cache: HIT, not sent")
            return HTTPResponse(cached: stored, status: .hit, for: hop)
        case .stale(let stored, let revalidation):
            if let revalidation, let conditional = hop.addingValidators(revalidation.headers) {
                attemptLine?.write(hop, note: "answered from the cache: STALE (stale-while-revalidate), revalidated in the background")
                revalidateInBackground(conditional, request: request, network: network)
            } else {
                attemptLine?.write(hop, note: "answered from the cache: STALE, not sent")
            }
            return HTTPResponse(cached: stored, status: .stale, for: hop)
        case .unavailable(let reason):
            attemptLine?.write(hop, note: "not sent: only the cache may answer it")
            throw .notInCache(hop, reason, policy: policy)
        case .needsValidation(let validation):
            guard let conditional = hop.addingValidators(validation.headers) else {
                return try await fetch(hop, request: request, network: network, attemptLine: attemptLine)
            }
            return try await validate(hop, sending: conditional, request: request, network: network, attemptLine: attemptLine)
        case .miss:
            return try await fetch(hop, request: request, network: network, attemptLine: attemptLine)
        }
    }

    struct Network: Sendable {
        let exchange: Exchange
        let rest: CallChain

        nonisolated(nonsending) func send(_ hop: PreparedRequest, download: PendingDownload?) async throws(NetworkError) -> HTTPResponse {
            var sent = exchange
            sent.request = hop
            sent.download = download
            var inner: PreparedRequest? = hop
            return try await rest.proceed(sent, sending: &inner)
        }
    }

    // MARK: Through the network

    /// The hop sent unchanged, ``CacheStatus/miss``.
    private nonisolated(nonsending) func fetch(_ hop: PreparedRequest, request: CacheRequest, network: Network,
                                               attemptLine: AttemptLine?) async throws(NetworkError) -> HTTPResponse {
        attemptLine?.write(hop)
        let (outcome, requestTime) = await exchange(hop, network: network)
        var response = try await answerFailure(outcome, request: request, hop: hop)
        guard response.cacheStatus == nil else { return response }  // stale-if-error answered
        try await store(response, for: request, requestTime: requestTime)
        response.cacheStatus = .miss
        return response
    }

    /// The hop sent with the cache's validators: a `304` gives the stored response back,
    /// freshened, ``CacheStatus/revalidated``.
    private nonisolated(nonsending) func validate(_ hop: PreparedRequest, sending conditional: PreparedRequest, request: CacheRequest,
                                                  network: Network, attemptLine: AttemptLine?) async throws(NetworkError) -> HTTPResponse {
        attemptLine?.write(conditional, renderedAs: hop, note: "revalidating the stored response: "
                               + conditional.headers.dropFirst(hop.headers.count).map { "\($0.name): \($0.value)" }.joined(separator: ", "))
        let deadline = Date().addingTimeInterval(hop.timeout)
        let (outcome, requestTime) = await exchange(conditional, network: network)
        var response = try await answerFailure(outcome, request: request, hop: hop)
        guard response.cacheStatus == nil else { return response }  // stale-if-error answered
        guard response.statusCode == 304 else {
            try await store(response, for: request, requestTime: requestTime)
            response.cacheStatus = .miss
            return response
        }
        let lines = response.headerLines
        let responseTime = Date()
        let revalidation = try await caching.store.perform {
            $0.freshen(notModified: lines, for: request, requestTime: requestTime, responseTime: responseTime, now: responseTime)
        }
        switch revalidation {
        case .revalidated(let stored):
            return HTTPResponse(cached: stored, status: .revalidated, for: hop, metrics: response.metrics)
        case .noMatch:
            // The 304 names a version the cache does not hold: ask again, without validators.
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else {
                throw .timeOut(.init(request: hop.redactedDescription,
                                     reason: "the timeout elapsed after a 304 that matched no stored response"))
            }
            return try await fetch(hop.limited(to: remaining), request: request, network: network, attemptLine: attemptLine)
        }
    }

    private nonisolated(nonsending) func exchange(_ hop: PreparedRequest, network: Network) async -> (RequestOutcome, Date) {
        let requestTime = Date()
        do throws(NetworkError) {
            return (.response(try await network.send(hop, download: nil)), requestTime)
        } catch {
            return (.failure(error), requestTime)
        }
    }

    /// The response of `outcome`, or, after a transport failure or a `500`, `502`, `503` or `504`,
    /// a stored response its `stale-if-error` allows (``CacheStatus/stale``); else the failure.
    private nonisolated(nonsending) func answerFailure(_ outcome: RequestOutcome, request: CacheRequest,
                                                       hop: PreparedRequest) async throws(NetworkError) -> HTTPResponse {
        let failure: CacheFailure
        switch outcome {
        case .response(let response) where [500, 502, 503, 504].contains(response.statusCode):
            failure = .status(response.statusCode)
        case .response(let response):
            return response
        case .failure(.transport), .failure(.timeOut), .failure(.reachability):
            failure = .transport
        case .failure(let error):
            throw error
        }
        let policy = caching.policy
        if let stale = try await caching.store.perform({ $0.staleResponse(for: request, policy: policy, after: failure, now: Date()) }) {
            hop.resolved.log?.note("the network failed (\(Call.cause(of: outcome))): a stale stored response answers (stale-if-error)",
                                   of: hop)
            return HTTPResponse(cached: stale, status: .stale, for: hop)
        }
        return try outcome.get()
    }

    /// Hands a response from the network to the cache: stored, or used to update or invalidate.
    private nonisolated(nonsending) func store(_ response: HTTPResponse, for request: CacheRequest, requestTime: Date) async throws(NetworkError) {
        let (status, lines, body, responseTime) = (response.statusCode, response.headerLines, response.body, Date())
        _ = try await caching.store.perform {
            $0.store(statusCode: status, headers: lines, body: body, for: request, requestTime: requestTime, responseTime: responseTime)
        }
    }

    /// stale-while-revalidate: the hop with validators, sent without anyone waiting; its answer
    /// freshens (a `304`) or replaces the stored response. One at a time per URL and cache.
    private func revalidateInBackground(_ conditional: PreparedRequest, request: CacheRequest, network: Network) {
        let store = caching.store
        guard store.beginRevalidation(of: request.keyURL) else { return }
        Task.detached {
            defer { store.endRevalidation(of: request.keyURL) }
            let requestTime = Date()
            guard let response = try? await network.send(conditional, download: nil) else { return }
            let (status, lines, body, responseTime) = (response.statusCode, response.headerLines, response.body, Date())
            _ = try? await store.perform { cache in
                if status == 304 {
                    _ = cache.freshen(notModified: lines, for: request, requestTime: requestTime, responseTime: responseTime, now: responseTime)
                } else {
                    cache.store(statusCode: status, headers: lines, body: body, for: request, requestTime: requestTime, responseTime: responseTime)
                }
            }
        }
    }

    // MARK: Around the cache

    /// A request the cache stays out of (a stream, a download, an upload, a GET with a body): sent as
    /// it is; an unsafe method's success still invalidates (RFC 9111 section 4.4).
    private nonisolated(nonsending) func bypass(_ hop: PreparedRequest, download: PendingDownload?, network: Network,
                                                attemptLine: AttemptLine?) async throws(NetworkError) -> HTTPResponse {
        attemptLine?.write(hop)
        var response = try await network.send(hop, download: download)
        let method = hop.method.rawValue
        if !HTTPCache.safeMethods.contains(method), (200...399).contains(response.statusCode) {
            let (status, url) = (response.statusCode, hop.urlText)
            let (location, contentLocation) = (response.value(forHeader: "Location"), response.value(forHeader: "Content-Location"))
            // The response stands whatever the cache can do: it was sent and answered.
            _ = try? await caching.store.perform {
                $0.invalidate(method: method, statusCode: status, url: url, location: location, contentLocation: contentLocation)
            }
        }
        response.cacheStatus = .miss
        return response
    }
}

/// A request's attempt line, written once, by the first hop, saying whether the cache answered it.
final class AttemptLine: Sendable {
    private let log: NetworkLog
    private let written = Atomic<Bool>(false)

    init(_ log: NetworkLog) {
        self.log = log
    }

    /// Writes the line for `hop` unless it was written.
    func write(_ hop: PreparedRequest, note: String? = nil) {
        guard !written.exchange(true, ordering: .relaxed) else { return }
        log.request(hop, curl: note == nil ? SigningStep.signed(hop).commandLine(redactingSecrets: true) : nil,
                    cacheNote: note)
    }

    /// Writes the line for `sent`, the cache's conditional form of `built`, unless it was written;
    /// the curl command is `built`'s, as copy-as-curl renders it.
    func write(_ sent: PreparedRequest, renderedAs built: PreparedRequest, note: String) {
        guard !written.exchange(true, ordering: .relaxed) else { return }
        log.request(sent, curl: SigningStep.signed(built).commandLine(redactingSecrets: true), cacheNote: note)
    }
}
