import Foundation

/// Where a manager's pinning reports go: its ``PinningReports`` subscribers, its log, and the rules'
/// report URIs. Called from the engine's thread inside handshakes, so it only records and hands
/// off: a report never delays or fails the request it is about. Every table is bounded, whatever
/// rate a hostile or broken server makes mismatches at.
final class PinningMonitor: Sendable {
    typealias LogTargets = (sink: (@Sendable (String) -> Void)?, entry: (@Sendable (NetworkLogEntry) -> Void)?)

    private struct State {
        var subscribers: [Int: AsyncStream<PinningReport>.Continuation] = [:]
        var nextSubscriber = 0
        var expiryWarning: Duration = .seconds(30 * 86_400)
        /// host:port → when its chain's expiry was last looked at.
        var expiryChecked: [String: Date] = [:]
        /// What was last sent (report URI) or logged, keyed by kind, host, port and pins.
        var posted: [String: Date] = [:]
        var logged: [String: Date] = [:]
        var postsInFlight = 0
        var logTargets: (@Sendable () -> LogTargets)?
    }

    private let state = Protected(State())
    /// Sends the report URIs' POSTs: a manager of its own, with no pins, mocks, log or middleware,
    /// so a report is never pinned against itself, mocked, logged or shown another request's headers.
    private let sender = Protected<NetworkManager?>(nil)

    static let tableLimit = 4_096
    static let maximumPostsInFlight = 4
    static let postTimeout: Duration = .seconds(10)

    var expiryWarning: Duration {
        get { state.withLock { $0.expiryWarning } }
        set { state.withLock { $0.expiryWarning = newValue } }
    }

    func attachLog(_ targets: @escaping @Sendable () -> LogTargets) {
        state.withLock { $0.logTargets = targets }
    }

    func subscribe() -> AsyncStream<PinningReport> {
        let (stream, continuation) = AsyncStream.makeStream(of: PinningReport.self, bufferingPolicy: .bufferingNewest(256))
        let id = state.withLock { state in
            state.nextSubscriber += 1
            state.subscribers[state.nextSubscriber] = continuation
            return state.nextSubscriber
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Whether the chain of `host:port` is due for an expiry check (the first connection, then daily),
    /// marking it checked.
    func claimExpiryCheck(host: String, port: Int, now: Date) -> Duration? {
        state.withLock { state in
            let key = "\(host):\(port)"
            if let last = state.expiryChecked[key], now.timeIntervalSince(last) < 86_400 { return nil }
            if state.expiryChecked.count >= Self.tableLimit { state.expiryChecked.removeAll() }
            state.expiryChecked[key] = now
            return state.expiryWarning
        }
    }

    /// Hands `report` to every subscriber, the log (once a minute per host and pins) and, when the
    /// rule names one, its report URI (once a day per host and pins).
    func deliver(_ report: PinningReport, reportURI: URL?) {
        let key = "\(report.kind.rawValue) \(report.host):\(report.port) \(report.expectedPins.joined(separator: ","))"
        let (subscribers, logTargets, shouldLog, shouldPost) = state.withLock { state in
            let shouldLog = Self.claim(key, every: 60, in: &state.logged, now: report.date)
            var shouldPost = false
            if reportURI != nil, state.postsInFlight < Self.maximumPostsInFlight,
               Self.claim(key + " " + (reportURI?.absoluteString ?? ""), every: 86_400, in: &state.posted, now: report.date) {
                state.postsInFlight += 1
                shouldPost = true
            }
            return (Array(state.subscribers.values), state.logTargets, shouldLog, shouldPost)
        }
        for subscriber in subscribers { subscriber.yield(report) }
        if shouldLog, let logTargets { Self.log(report.description, level: report.wasEnforced ? .error : .info, to: logTargets()) }
        if shouldPost, let reportURI { post(report, to: reportURI) }
    }

    /// A line about the configuration, for the log only.
    func warn(_ message: String) {
        guard let logTargets = state.withLock({ $0.logTargets }) else { return }
        Self.log(message, level: .info, to: logTargets())
    }

    /// Ends every subscriber's sequence (tests read what was buffered).
    func finishForTesting() {
        for subscriber in state.withLock({ Array($0.subscribers.values) }) { subscriber.finish() }
    }

    var tableSizesForTesting: (logged: Int, posted: Int, expiry: Int) {
        state.withLock { ($0.logged.count, $0.posted.count, $0.expiryChecked.count) }
    }

    private static func claim(_ key: String, every seconds: TimeInterval, in table: inout [String: Date], now: Date) -> Bool {
        if let last = table[key], now.timeIntervalSince(last) < seconds, now >= last { return false }
        if table.count >= tableLimit { table = table.filter { now.timeIntervalSince($0.value) < seconds } }
        guard table.count < tableLimit else { return false }
        table[key] = now
        return true
    }

    private static func log(_ message: String, level: NetworkLogEntry.Level, to targets: LogTargets) {
        let line = message.escapingControlCharacters
        targets.sink?("[NetworkLayer pinning] \(line)\n")
        targets.entry?(NetworkLogEntry(phase: .note, level: level, requestID: 0, method: .get, url: "", isMocked: false, message: line))
    }

    private func post(_ report: PinningReport, to uri: URL) {
        let sender = sender.withLock { sender in
            if let sender { return sender }
            let created = NetworkManager()
            created.isVerbose = false
            sender = created
            return created
        }
        Task.detached { [self] in
            defer { state.withLock { $0.postsInFlight -= 1 } }
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            encoder.outputFormatting = [.sortedKeys]
            guard let body = try? encoder.encode(report) else { return }
            // Best effort: a report URI that is down, slow or answers 500 loses this report only.
            _ = try? await sender.perform(PinningReportRequest(uri: uri, body: body))
        }
    }
}

/// The POST of one report to a rule's report URI.
private final class PinningReportRequest: BaseRequest<EmptyResponse> {
    init(uri: URL, body: Data) {
        let parts = URLComponents(url: uri, resolvingAgainstBaseURL: false)
        let path = parts?.percentEncodedPath ?? ""
        super.init(serviceProvider: ReportURIProvider(uri: uri), endpoint: path.isEmpty ? "/" : path)
        // The query travels as params: with an explicit body they stay in the URL.
        for item in parts?.queryItems ?? [] where params[item.name] == nil { params[item.name] = item.value ?? "" }
        httpMethod = .post
        self.body = .data(body, contentType: "application/json")
        requestTimeout = PinningMonitor.postTimeout
    }
}

private struct ReportURIProvider: ServiceProvider {
    let uri: URL
    var host: String { uri.host ?? "" }
    var httpScheme: HTTPScheme { uri.scheme?.lowercased() == "https" ? .https : .http }
    var port: Int? { uri.port }
}
