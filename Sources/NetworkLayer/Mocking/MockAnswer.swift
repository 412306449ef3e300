import Foundation

/// What a mock answers a request with, once found: a response or a failure, after a delay.
///
/// Everything a mock can say (a file and its sidecar, a ``MockResponse`` registered in code)
/// becomes one of these, so every kind is delivered the same way: the delay waits on the
/// request's timeout and cancellation exactly as a slow server would.
enum MockAnswer: Sendable {
    /// A response, handed to the data path as a live one would be.
    case response(HTTPResponse, delay: Duration)
    /// A failure, thrown as a live transfer's would be (its reason says it was mocked).
    case failure(NetworkError, delay: Duration)
    /// A response whose body a streaming request reads paced: `eventDelay` between its events
    /// (``EventStream``) or lines (``JSONLines``, ``ByteStream``). A request that is not
    /// streaming gets the whole body, as from ``response(_:delay:)``. An event stream with
    /// `cutAfterEvents` loses its connection after that many events (from where its request's
    /// `Last-Event-ID` resumes it), as a server behind a flaky network would.
    case stream(HTTPResponse, delay: Duration, eventDelay: Duration, cutAfterEvents: Int? = nil)

    /// The longest delay a mock may ask for: an hour. A mock's delay rehearses a slow server;
    /// anything longer is a mistake (or a hostile number), refused with a clear error.
    static let maximumDelay = Duration.seconds(3600)

    var delay: Duration {
        switch self {
        case .response(_, let delay), .failure(_, let delay), .stream(_, let delay, _, _): delay
        }
    }

    /// The pause between events or lines of a streamed body.
    var eventDelay: Duration {
        if case .stream(_, _, let eventDelay, _) = self { return eventDelay }
        return .zero
    }

    /// After how many events an event stream's connection is cut, if it is.
    var cutAfterEvents: Int? {
        if case .stream(_, _, _, let cut) = self { return cut }
        return nil
    }

    /// Waits for the delay, then returns the response or throws the failure.
    ///
    /// - Throws: the mocked failure; ``NetworkError/timeOut`` when the delay is longer than the
    ///   request's timeout (after waiting the timeout, as a slow server would make it);
    ///   ``NetworkError/cancelled`` when the task is cancelled while waiting;
    ///   ``NetworkError/invalidRequest`` for a delay below zero or above ``maximumDelay``.
    func deliver(for request: PreparedRequest) async throws(NetworkError) -> HTTPResponse {
        let delay = self.delay
        guard delay >= .zero, delay <= Self.maximumDelay else {
            throw .invalidRequest(.init(request: request.redactedDescription,
                                        reason: "the mock's delay of \(delay.seconds.compactText) s is not from 0 to \(Self.maximumDelay.seconds.compactText) s"))
        }
        if delay > .zero {
            // The request's timeout still applies, as it would to a slow server. It is converted
            // to a duration only when it is shorter than the delay, so it is finite and small.
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
