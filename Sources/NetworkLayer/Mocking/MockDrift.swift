import Foundation

/// A request ``MockDrift`` can check: every ``BaseRequest`` is one. Conforming another type
/// does nothing: the check refuses it.
public protocol MockDriftCheckable: AnyObject {}

extension BaseRequest: MockDriftCheckable {}

/// Checks that mocks still tell the truth: each request is sent to a live backend and compared
/// with the mock that mock mode would answer it with.
///
/// ```swift
/// // in a test target, against a staging backend
/// let report = try await MockDrift.check(against: StagingProvider(), requests: [Profile(), Search(term: "a")])
/// #expect(report.drifted.isEmpty, "\(report)")
/// ```
///
/// For each request the live answer (sent to `provider` through `manager` with mock mode off, so
/// its chain, TLS options and pins apply; never its response cache, record mode or traffic
/// recording) and the mock (the registry, then the mock files, as mock mode finds it; without the
/// network) are decoded with the request's `Response` type and compared: status class, the media
/// type, the mock's other headers (by name: a secret one is not compared), and the JSON shape — keys,
/// kinds of value, array elements, null seen. A new live field is an addition, not drift.
public enum MockDrift {
    /// Compares each of `requests` live and mocked, one after another; see ``MockDrift``.
    ///
    /// - Parameters:
    ///   - provider: the live backend, used in place of each request's own provider.
    ///   - requests: the requests whose mocks to check, each a ``BaseRequest``, checked in turn.
    ///   - sendingNonIdempotent: whether a `POST`, `PATCH` or other non-idempotent request is sent;
    ///     by default it is skipped.
    ///   - manager: whose settings, pins, registered mocks and mock directory are used.
    ///   - isolation: the caller's actor, on which the requests (not `Sendable`) are read.
    /// - Throws: ``NetworkError/invalidRequest(_:)`` only for a bad call: no request, one that is
    ///   not a ``BaseRequest``, or a provider that mocks itself. What goes wrong with one request
    ///   (a timeout, HTML, a broken mock) is an entry of the report.
    public static func check(
        against provider: any ServiceProvider, requests: [any MockDriftCheckable], sendingNonIdempotent: Bool = false,
        manager: NetworkManager = Net, isolation: isolated (any Actor)? = #isolation
    ) async throws(NetworkError) -> MockDriftReport {
        func refuse(_ reason: String) -> NetworkError { .invalidRequest(.init(reason: "MockDrift.check: \(reason)")) }
        guard !requests.isEmpty else { throw refuse("no request was given; pass the requests whose mocks to check") }
        guard provider.areMocksEnabled != true else {
            throw refuse("the provider sets areMocksEnabled to true; give a provider of the live backend")
        }
        let settings = manager.settings.withLock { $0 }
        var live = settings, mocked = settings
        live.areMocksEnabled = false
        live.mockRecordingDirectory = nil
        live.responseCacheStore = nil
        live.recordsTraffic = false
        mocked.areMocksEnabled = true
        var probes: [DriftProbe] = []
        for request in requests {
            guard let probing = request as? any DriftProbing else {
                throw refuse("\(type(of: request)) is not a BaseRequest")
            }
            probes.append(probing.driftProbe(live: live, mocked: mocked, sentTo: provider))
        }
        var entries: [MockDriftReport.Entry] = []
        var answeredBy: [String: String] = [:]
        for probe in probes {
            var entry = await probe.check(sendingNonIdempotent: sendingNonIdempotent, registry: manager.mocks)
            if let mock = entry.mock {
                if let first = answeredBy[mock] { entry.notes.append("answered by the same mock as \(first)") } else { answeredBy[mock] = entry.request }
            }
            entries.append(entry)
        }
        return MockDriftReport(entries: entries)
    }
}

/// What ``BaseRequest`` gives ``MockDrift``: its two resolved forms and a decoder of its `Response`.
protocol DriftProbing {
    func driftProbe(live: Settings, mocked: Settings, sentTo provider: any ServiceProvider) -> DriftProbe
}

extension BaseRequest: DriftProbing {
    func driftProbe(live: Settings, mocked: Settings, sentTo provider: any ServiceProvider) -> DriftProbe {
        let parser = self.parser
        return DriftProbe(live: resolved(with: live, sentTo: provider), mocked: resolved(with: mocked),
                          responseType: String(describing: Response.self)) { response, provider throws(NetworkError) in
            _ = try Call.parse(response, with: parser, provider: provider)
        }
    }
}

/// One request of a drift check, resolved twice: live, and as mock mode would run it.
struct DriftProbe: Sendable {
    let live: ResolvedRequest
    let mocked: ResolvedRequest
    let responseType: String
    let decode: @Sendable (HTTPResponse, any ServiceProvider) throws(NetworkError) -> Void

    /// Headers whose presence says how the body travelled, not what the API promises.
    static let transportHeaders: Set<String> = ["content-length", "transfer-encoding", "connection", "keep-alive",
                                                "content-encoding", "content-type"]

    nonisolated(nonsending) func check(sendingNonIdempotent: Bool, registry: MockRegistry) async -> MockDriftReport.Entry {
        var entry = MockDriftReport.Entry(request: Self.name(live.describeUnprepared()), mock: nil, differences: [],
                                          additions: [], notes: [], skipped: nil)
        var secrets: [String] = []
        await check(into: &entry, secrets: &secrets, sendingNonIdempotent: sendingNonIdempotent, registry: registry)
        return entry.cleaned(secrets: secrets)
    }

    private nonisolated(nonsending) func check(into entry: inout MockDriftReport.Entry, secrets: inout [String],
                                               sendingNonIdempotent: Bool, registry: MockRegistry) async {
        if live.streamKind != nil || live.downloadDestination != nil {
            entry.skipped = "its response is a stream, a download or a WebSocket; MockDrift compares whole bodies"
            return
        }
        if !live.method.isIdempotent && !sendingNonIdempotent {
            entry.skipped = "\(live.method.rawValue) is not idempotent, so it was not sent; pass sendingNonIdempotent: true to send it"
            return
        }
        guard let directory = mocked.mockResponsesDirectory else {
            entry.skipped = "its provider sets areMocksEnabled to false, so mock mode never answers it"
            return
        }
        // The mock first: a broken mock is reported without a request to the backend.
        let mock: HTTPResponse
        do throws(NetworkError) {
            let base = try await Call(mocked, chain: CallChain(for: mocked, mocks: registry)).prepare()
            secrets += base.prepared.redactor.secretValues(of: base.prepared)
            let transport = MockTransport(store: MockStore(directory: directory, usage: registry.usage), registry: registry)
            let (answer, source) = try transport.sourcedAnswer(for: base.prepared, recorded: RecordedRequest(base.prepared))
            entry.mock = source
            if case .failure(let failure, _) = answer {
                entry.skipped = "the mock answers with a failure (\(failure.errorDescription ?? "\(failure)")); there is no body to compare"
                return
            }
            mock = try await answer.deliver(for: base.prepared)
        } catch {
            entry.differences.append("no usable mock: \(error.errorDescription ?? "\(error)")")
            return
        }
        var hop: PreparedRequest?
        let received: HTTPResponse
        do throws(NetworkError) {
            received = try await Call(live, chain: CallChain(for: live, mocks: registry)).run(sending: &hop)
            if let hop { entry.request = Self.name(hop.redactedDescription) }
        } catch {
            if let hop {
                secrets += hop.redactor.secretValues(of: hop)
                entry.request = Self.name(hop.redactedDescription)
            }
            entry.differences.append("live: the request failed: \(error.errorDescription ?? "\(error)")")
            return
        }
        if let hop { secrets += hop.redactor.secretValues(of: hop) }
        compare(mock: mock, live: received, into: &entry, isSecret: hop?.redactor.isSecretHeader ?? { _ in false })
        return
    }

    private func compare(mock: HTTPResponse, live received: HTTPResponse, into entry: inout MockDriftReport.Entry,
                         isSecret: (String) -> Bool) {
        if mock.statusCode / 100 != received.statusCode / 100 {
            entry.differences.append("status: \(mock.statusCode / 100)xx in the mock (\(mock.statusCode)), "
                                     + "\(received.statusCode / 100)xx live (\(received.statusCode))")
            return
        }
        let mediaType = { (response: HTTPResponse) in
            response.value(forHeader: "Content-Type").map { value in
                (value.split(separator: ";").first.map(String.init) ?? "").trimmingCharacters(in: .whitespaces).lowercased()
            }
        }
        if let mocked = mediaType(mock), mocked != mediaType(received) {
            entry.differences.append("Content-Type: \(mocked) in the mock, \(mediaType(received) ?? "none") live")
        }
        for name in mock.headerBlock.valuesByName.keys.sorted() where !Self.transportHeaders.contains(name.lowercased()) && !isSecret(name) {
            if received.value(forHeader: name) == nil { entry.differences.append("header \(name): in the mock, missing live") }
        }
        if mocked.expectations.acceptableStatuses.contains(mock.statusCode) {
            do throws(NetworkError) {
                try decode(mock, mocked.provider)
            } catch {
                entry.differences.append("the mock itself does not decode as \(responseType): \(Self.reason(error))")
            }
        }
        if live.expectations.acceptableStatuses.contains(received.statusCode) {
            do throws(NetworkError) {
                try decode(received, live.provider)
            } catch {
                entry.differences.append("live: does not decode as \(responseType): \(Self.reason(error))")
            }
        }
        switch (mock.body.isEmpty, received.body.isEmpty) {
        case (true, true): return
        case (false, true): entry.differences.append("the body: \(mock.body.count) bytes in the mock, empty live"); return
        case (true, false): entry.additions.append("the body: empty in the mock, \(received.body.count) bytes live"); return
        case (false, false): break
        }
        switch (JSONShape.read(mock.body), JSONShape.read(received.body)) {
        case (.success(let mocked), .success(let seen)):
            let found = JSONShape.compare(mock: mocked, live: seen)
            entry.differences += found.differences
            entry.additions += found.additions
        case (.failure(let failure), _):
            entry.differences.append("the mock's body has no JSON shape to compare: \(failure.reason)")
        case (_, .failure(let failure)):
            entry.differences.append("live: the body has no JSON shape to compare: \(failure.reason)")
        }
    }

    /// A decoding failure by its coding path; another failure by its description.
    private static func reason(_ error: NetworkError) -> String {
        if let underlying = error.context?.underlyingError, underlying is DecodingError { return HTTPResponse.describe(underlying) }
        return error.errorDescription ?? "\(error)"
    }

    /// `METHOD /path?query` from a redacted `METHOD scheme://host/path?query`.
    static func name(_ description: String) -> String {
        guard let scheme = description.range(of: "://") else { return description }
        let method = description[..<scheme.lowerBound].split(separator: " ").first.map(String.init) ?? ""
        let rest = description[scheme.upperBound...]
        let path = rest.firstIndex(where: { $0 == "/" || $0 == "?" }).map { rest[$0...] } ?? "/"
        return "\(method) \(path.hasPrefix("?") ? "/" + path : String(path))"
    }
}
