import Foundation

/// Where a reconnected event stream resumes: what its parser keeps across bodies.
struct StreamResumption: Sendable, Equatable {
    /// The last event ID: `nil` when the stream never set one, empty when it reset it.
    var lastEventID: String?
    /// The reconnection time the stream's last valid `retry:` asked for.
    var retry: Duration?
}

/// Connects an ``EventStream`` again when its body ends, by its request's ``ReconnectPolicy``:
/// what the stream's iterator holds when the request has one. It belongs to that iterator (not
/// `Sendable`); every reconnection it makes goes through ``nextAttempt(of:resumingAfter:route:)``.
///
/// A reconnection is part of the call: the call's middlewares wrap the stream once, while network
/// middlewares and observers see each one (``RequestObserver/willRetry(after:attempt:delay:)``).
final class EventStreamReconnector {
    let policy: ReconnectPolicy
    /// The request as last sent: the reconnection's settings, and how the log and errors name it.
    private var request: PreparedRequest
    private let route: StreamBody.Route
    /// The head of the last response, for the observers when its body ends.
    private var response: HTTPResponse
    /// Reconnections in a row that have not brought an event yet.
    private(set) var attempts = 0
    /// Connections made so far, the first one included: the observers' attempt number.
    private var connections = 1

    /// A reconnector for `body`, the stream of `response`, or `nil` when it does not reconnect
    /// (no policy, a method the policy leaves alone, a body not from a transport, or, as for
    /// `EventSource`, a first response that is `204 No Content` or not `text/event-stream`).
    init?(_ body: StreamBody, of response: HTTPResponse) {
        guard let route = body.route, let request = body.request, let policy = request.resolved.reconnectPolicy,
              policy.allows(request.method), response.statusCode != 204,
              Self.isEventStream(response.value(forHeader: "Content-Type")) else { return nil }
        self.policy = policy
        self.request = request
        self.route = route
        self.response = response
        body.holdEndForReconnection()
    }

    /// The current body brought events: the count of attempts in a row starts again.
    @inline(__always)
    func eventsArrived() {
        attempts = 0
    }

    /// The body to read next after `body` ended with `ending` (`nil`: its end), or `nil` when the
    /// stream ends normally; the handlers waiting for the stream's end move to the new body.
    ///
    /// - Throws: `ending` when it is not a connection failure; the last failure once attempts are
    ///   spent; a reconnection's failing answer; ``NetworkError/cancelled`` for a cancelled reader.
    nonisolated(nonsending) func reconnect(_ body: StreamBody, after ending: NetworkError?,
                                           from resumption: StreamResumption) async throws(NetworkError) -> StreamBody? {
        do throws(NetworkError) {
            guard let next = try await reconnect(after: ending, from: resumption) else {
                body.endStream(nil)
                return nil
            }
            next.continueStream(from: body)
            return next
        } catch {
            body.endStream(error)
            throw error
        }
    }

    private nonisolated(nonsending) func reconnect(after ending: NetworkError?, from resumption: StreamResumption) async throws(NetworkError) -> StreamBody? {
        guard ReconnectPolicy.reconnects(after: ending) else {
            if let ending { throw ending }
            return nil
        }
        var failure = ending
        while attempts < policy.maximumAttempts {
            attempts += 1
            let wait = policy.delay(before: attempts, retry: resumption.retry)
            request.resolved.log?.retry(Self.describe(failure, attempt: attempts, of: policy.maximumAttempts, wait: wait,
                                                      lastEventID: resumption.lastEventID), of: request)
            if !route.observers.isEmpty {
                let outcome = failure.map(RequestOutcome.failure) ?? .response(response)
                for observer in route.observers { observer.willRetry(after: outcome, attempt: connections, delay: wait) }
            }
            do {
                try await Task.sleep(for: wait)
            } catch {
                throw .cancelled(.init(request: request.redactedDescription, reason: "the task reading the stream was cancelled "
                                       + "while it waited to reconnect"))
            }
            connections += 1
            do throws(NetworkError) {
                guard let (body, head, sent) = try await Self.nextAttempt(of: request, resumingAfter: resumption.lastEventID,
                                                                          route: route) else { return nil }
                request = sent
                response = head
                return body
            } catch {
                guard ReconnectPolicy.reconnects(after: error) else { throw error }
                failure = error
            }
        }
        if let failure { throw failure }
        return nil
    }

    /// The request's next attempt, for a reconnection: prepared again (provider headers,
    /// credentials) with `Last-Event-ID`, the call's middleware changes replayed, and run down the
    /// call's chain from its follow-up step. Only reconnections go through here.
    ///
    /// - Returns: the new body; `nil` for a `204 No Content` (the server's "no more").
    /// - Throws: the attempt's failure; the error a status outside the acceptable ones maps to;
    ///   ``NetworkError/serialization(_:)`` for a `Content-Type` that is not `text/event-stream`.
    nonisolated(nonsending) static func nextAttempt(of request: PreparedRequest, resumingAfter lastEventID: String?,
                                                    route: StreamBody.Route) async throws(NetworkError) -> (StreamBody, HTTPResponse, PreparedRequest)? {
        let resolved = request.resolved.reconnecting(lastEventID: lastEventID)
        let call = Call(resolved, chain: route.chain)
        var sent: PreparedRequest?
        do throws(NetworkError) {
            let base = try await call.prepare(replaying: route.changes)
            sent = base.prepared
            let response = try await route.chain.proceed(Exchange(request: base.prepared, base: base, call: call.context,
                                                                  observers: route.observers), sending: &sent)
            guard let last = sent else { throw .transport(.init(reason: "the request was not sent")) }
            resolved.log?.response(response, to: last, elapsed: call.started.duration(to: .now))
            if response.statusCode == 204 {
                response.stream?.cancel(because: "the server answered the reconnection with 204 No Content")
                return nil
            }
            guard let stream = response.stream else {
                throw .transport(.init(request: last.redactedDescription, reason: "the reconnection's response has no stream"))
            }
            guard response.expectations.acceptableStatuses.contains(response.statusCode) else {
                try response.replacingBody(await stream.collect(upTo: HTTPResponse.errorBodyLimit)).validateStatus()
                return nil
            }
            guard isEventStream(response.value(forHeader: "Content-Type")) else {
                stream.cancel(because: "the reconnection's response is not text/event-stream")
                let type = response.value(forHeader: "Content-Type").map { "\"\(HeaderFields.printable(String($0.prefix(100))))\"" }
                throw .serialization(.init(request: last.redactedDescription,
                                           reason: "the reconnection was answered with the Content-Type \(type ?? "(none)"), "
                                               + "not text/event-stream, which ends the stream as EventSource does",
                                           statusCode: response.statusCode, response: response.keptForError()))
            }
            stream.observe(.init(log: resolved.log, request: last, started: call.started))
            return (stream, response.head, last)
        } catch {
            let error = sent.map { error.describingRequest($0.redactedDescription).redactingSecrets($0.redactor.secretValues(of: $0)) }
                ?? error
            resolved.log?.failure(error, of: sent, resolved: resolved, elapsed: call.started.duration(to: .now))
            throw error
        }
    }

    /// Whether a `Content-Type` value is `text/event-stream` (any parameters, any case).
    static func isEventStream(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let type = contentType.split(separator: ";", maxSplits: 1).first ?? ""
        return SecretNames.folded(type.trimmingCharacters(in: .whitespaces)) == "text/event-stream"
    }

    /// The log's line for a reconnection about to wait.
    private static func describe(_ failure: NetworkError?, attempt: Int, of maximum: Int, wait: Duration,
                                 lastEventID: String?) -> String {
        let cause = failure.map { "failed (\($0.context?.reason ?? "\($0)"))" } ?? "ended"
        let id = lastEventID.flatMap { $0.isEmpty ? nil : "Last-Event-ID \"\(HeaderFields.printable(String($0.prefix(100))))\"" }
        return "the stream \(cause); reconnecting in \(NetworkLog.milliseconds(wait)) ms (attempt \(attempt) of \(maximum))"
            + (id.map { " with \($0)" } ?? "")
    }
}
