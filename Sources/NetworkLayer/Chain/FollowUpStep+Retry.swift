import Foundation

/// Whether an attempt is tried again: the library's links first (the token refresh on a 401,
/// then the request's ``RetryPolicy``), then the interceptors (the request's, the provider's at
/// its own origin, the manager's); the first that retries decides.
extension FollowUpStep {
    struct Retry {
        var delay: Duration
        /// Who decided, for the log ("attempt 1 of 3 failed (status 503)" is the retry policy's).
        var note: String
        /// For a broken download that continues: the byte the next attempt asks for.
        var resumeOffset: Int64?
    }

    /// The retry the chain decides after `outcome`, or `nil` when the outcome stands (also when
    /// the wait would end after the request's timeout).
    nonisolated(nonsending) func decide(after outcome: RequestOutcome, of attempt: PreparedRequest, hop: PreparedRequest,
                                        download: PendingDownload?, call: CallContext, state: inout State) async throws(NetworkError) -> Retry? {
        let resolved = call.resolved
        if let resume = Self.resumeDownload(after: outcome, of: attempt, download: download, for: resolved), call.remainingTime > 0 {
            return resume
        }
        guard let retry = try await chain(after: outcome, of: attempt, hop: hop, resolved: resolved, state: &state) else { return nil }
        guard retry.delay.seconds < call.remainingTime else {
            resolved.log?.retry("\(retry.note.isEmpty ? "a retry" : retry.note) not retried: the timeout of "
                                + "\(resolved.timeout.compactText) s would elapse first", of: hop)
            return nil
        }
        return retry
    }

    private nonisolated(nonsending) func chain(after outcome: RequestOutcome, of attempt: PreparedRequest, hop: PreparedRequest,
                                               resolved: ResolvedRequest, state: inout State) async throws(NetworkError) -> Retry? {
        if let retry = try await refreshToken(after: outcome, of: hop, resolved: resolved, state: &state) { return retry }
        if let retry = Self.retryPolicy(after: outcome, of: attempt, number: state.attempt, resolved: resolved) { return retry }
        let interceptors = resolved.interceptors
        let provider = hop.isAtProviderOrigin ? interceptors.provider : []
        guard !interceptors.request.isEmpty || !provider.isEmpty || !interceptors.manager.isEmpty else { return nil }
        // An open circuit refuses every attempt until it closes: retrying would only spin.
        if case .failure(.circuitOpen) = outcome { return nil }
        let chain = interceptors.request + provider + interceptors.manager
        let sent = attempt.outgoing()
        for interceptor in chain {
            let delay: Duration
            switch await interceptor.retry(sent, after: outcome, attempt: state.attempt) {
            case .doNotRetry: continue
            case .retry: delay = .zero
            case .retryAfter(let wanted): delay = RetryPolicy.clamped(wanted)
            }
            // A streamed body was read by the attempt: the outcome stands.
            if attempt.sendsBodyOnce { return nil }
            return Retry(delay: delay, note: "attempt \(state.attempt) failed (\(Call.cause(of: outcome))); \(Call.name(of: interceptor)) retries")
        }
        return nil
    }

    static let maximumResumes = 10

    /// A download that broke after part of its body, with ``BaseRequest/resumesDownloads`` set
    /// and a validator to ask `If-Range` with: the next attempt continues from the file's end
    /// (at most ``maximumResumes`` times, each after some progress). Not a `GET` with a `Range`
    /// of its own, nor a failure no resume could mend (cancelled, refused before sending).
    private static func resumeDownload(after outcome: RequestOutcome, of attempt: PreparedRequest, download: PendingDownload?,
                                       for resolved: ResolvedRequest) -> Retry? {
        guard resolved.resumesDownloads, let download, case .failure(let error) = outcome, attempt.method == .get,
              attempt.headers.value(for: "Range") == nil || download.resumedFromData else { return nil }
        switch error {
        case .transport, .timeOut, .reachability: break
        default: return nil
        }
        guard let offset = download.resume(limit: maximumResumes) else { return nil }
        return Retry(delay: .zero, note: "the download broke after \(offset) bytes (\(Call.cause(of: outcome))); "
                     + "asking for the rest (Range, If-Range)", resumeOffset: offset)
    }

    /// A 401 to a request with a refreshable bearer token: one refresh (shared with concurrent
    /// requests), one retry; a second 401 stands. A streamed body cannot go a second time: the
    /// token is still refreshed for the next request, and this one fails saying so.
    private nonisolated(nonsending) func refreshToken(after outcome: RequestOutcome, of hop: PreparedRequest, resolved: ResolvedRequest,
                                                      state: inout State) async throws(NetworkError) -> Retry? {
        guard !state.hasRefreshed, let source = resolved.authentication?.refreshableSource, let stale = state.credentials?.token,
              case .response(let response) = outcome, response.statusCode == 401 else { return nil }
        resolved.log?.retry("401: refreshing the token, then retrying once", of: hop)
        state.hasRefreshed = true
        _ = try await source.token(replacing: stale)
        if hop.sendsBodyOnce {
            response.stream?.cancel(because: "its request could not be retried")
            throw hop.cannotSendBodyAgain(after: response, "the server answered 401 and the token was refreshed")
        }
        return Retry(delay: .zero, note: "")
    }

    /// The request's ``RetryPolicy``: a retryable status or transport failure, a method it may
    /// repeat, attempts left, and a body that can go again.
    private static func retryPolicy(after outcome: RequestOutcome, of attempt: PreparedRequest, number: Int,
                                    resolved: ResolvedRequest) -> Retry? {
        guard let policy = resolved.retryPolicy, number < policy.maximumAttempts, policy.allows(attempt.method),
              !attempt.sendsBodyOnce else { return nil }
        let retryAfter: String?
        switch outcome {
        case .response(let response) where policy.retryableStatuses.contains(response.statusCode):
            retryAfter = response.value(forHeader: "Retry-After")
        case .failure(let error) where policy.retries(error):
            retryAfter = nil
        default:
            return nil
        }
        return Retry(delay: policy.delay(after: number, retryAfter: retryAfter),
                     note: "attempt \(number) of \(policy.maximumAttempts) failed (\(Call.cause(of: outcome)))")
    }

    static nonisolated(nonsending) func wait(_ retry: Retry, after outcome: RequestOutcome, of hop: PreparedRequest,
                                             for resolved: ResolvedRequest) async throws(NetworkError) {
        // The outcome's stream must not keep its transfer going while we wait (or after).
        outcome.stream?.cancel(because: "its request is retried")
        if !retry.note.isEmpty {
            resolved.log?.retry("\(retry.note); retrying in \(NetworkLog.milliseconds(retry.delay)) ms", of: hop)
        }
        guard retry.delay > .zero else { return }
        do {
            try await Task.sleep(for: retry.delay)
        } catch {
            throw .cancelled(.init(request: hop.redactedDescription, reason: "it was cancelled while waiting to retry"))
        }
    }
}
