import Foundation

/// What a mock answers a request with, once found: a response or a failure, after a delay.
/// Every kind of mock becomes one of these, so the delay waits on the request's timeout and
/// cancellation exactly as a slow server would.
enum MockAnswer: Sendable {
    case response(HTTPResponse, delay: Duration)
    /// A failure, thrown as a live transfer's would be (its reason says it was mocked).
    case failure(NetworkError, delay: Duration)
    /// A response whose body a streaming request reads paced by `eventDelay`; a request that is not
    /// streaming gets the whole body. `cutAfterEvents` cuts an event stream's connection after that
    /// many events (resuming from `Last-Event-ID`).
    case stream(HTTPResponse, delay: Duration, eventDelay: Duration, cutAfterEvents: Int? = nil)

    /// The longest delay a mock may ask for: an hour; anything longer is refused with a clear error.
    static let maximumDelay = Duration.seconds(3600)

    var delay: Duration {
        switch self {
        case .response(_, let delay), .failure(_, let delay), .stream(_, let delay, _, _): delay
        }
    }

    var eventDelay: Duration {
        if case .stream(_, _, let eventDelay, _) = self { return eventDelay }
        return .zero
    }

    var cutAfterEvents: Int? {
        if case .stream(_, _, _, let cut) = self { return cut }
        return nil
    }

    /// Waits for the delay, then returns the response or throws the failure.
    ///
    /// - Throws: the mocked failure; ``NetworkError/timeOut`` when the delay is longer than the
    ///   request's timeout; ``NetworkError/cancelled``; ``NetworkError/invalidRequest`` for a delay
    ///   outside 0...``maximumDelay``.
    func deliver(for request: PreparedRequest) async throws(NetworkError) -> HTTPResponse {
        let delay = self.delay
        guard delay >= .zero, delay <= Self.maximumDelay else {
            throw .invalidRequest(.init(request: request.redactedDescription,
                                        reason: "the mock's delay of \(delay.seconds.compactText) s is not from 0 to \(Self.maximumDelay.seconds.compactText) s"))
        }
        if delay > .zero {
            // The timeout is converted to a duration only when shorter than the delay, so it is finite.
            let timeout = request.timeout
            let timesOut = timeout.isFinite && timeout < delay.seconds
            do {
                try await Task.sleep(for: timesOut ? .seconds(timeout) : delay)
            } catch {
                throw .cancelled(.init(request: request.redactedDescription, reason: "it was cancelled during the mock's delay"))
            }
            if timesOut {
                throw .timeOut(.init(request: request.redactedDescription,
                                     reason: "the mock's delay of \(delay.seconds.compactText) s exceeds the timeout of \(timeout.compactText) s"))
            }
        }
        if Task.isCancelled {
            throw .cancelled(.init(request: request.redactedDescription, reason: "it was cancelled"))
        }
        switch self {
        case .response(let response, _), .stream(let response, _, _, _): return response
        case .failure(let error, _): throw error
        }
    }
}
