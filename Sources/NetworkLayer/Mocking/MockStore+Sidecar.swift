import Foundation

extension MockStore {
    /// What a sidecar (`<name>.meta.json`) may say about a mocked response; every field is optional:
    ///
    ///     {"statusCode": 404, "headers": {"Link": ["<…>; rel=\"next\"", "<…>; rel=\"last\""]}, "delay": 0.5}
    ///     {"error": "timeOut", "eventDelay": 0.2, "cutAfterEvents": 3}
    ///
    /// Read with ``parse(_:path:)``, which checks every value: a sidecar is outside input, and a
    /// hostile number must be a clear error, never a trap.
    struct Sidecar: Codable, Sendable, Equatable {
        /// Default 200.
        var statusCode: Int?
        /// Default `Content-Type: application/json`; a repeated header has an array of values, in order.
        var headers: [String: HeaderValues]?
        var delay: Double?
        /// One of the ``MockFailureKind`` names.
        var error: String?
        /// Seconds between a stream's events or lines.
        var eventDelay: Double?
        /// For an event stream: the connection is cut after this many events, each time resuming from
        /// the request's `Last-Event-ID`, to rehearse ``ReconnectPolicy``.
        var cutAfterEvents: Int?

        static let maximumCutAfterEvents = 1_000_000

        /// The sidecar in `data`, every value checked; `path` names the file in errors.
        ///
        /// - Throws: ``NetworkError/invalidRequest`` naming the file and the refused value.
        static func parse(_ data: Data, path: String) throws(NetworkError) -> Sidecar {
            func refuse(_ why: String, _ underlying: (any Error)? = nil) -> NetworkError {
                .invalidRequest(.init(reason: "the mock sidecar \(path) is not valid: \(why)", underlyingError: underlying))
            }
            let sidecar: Sidecar
            do {
                sidecar = try JSONDecoder().decode(Sidecar.self, from: data)
            } catch {
                throw refuse(HTTPResponse.describe(error), error)
            }
            if let status = sidecar.statusCode, !(100...599).contains(status) {
                throw refuse("it gives the status \(status), outside 100...599")
            }
            if let delay = sidecar.delay, !(delay >= 0 && delay <= MockAnswer.maximumDelay.seconds) {
                throw refuse("it gives the delay \(delay), not a number of seconds from 0 to \(MockAnswer.maximumDelay.seconds.compactText)")
            }
            if let eventDelay = sidecar.eventDelay, !(eventDelay >= 0 && eventDelay <= MockAnswer.maximumDelay.seconds) {
                throw refuse("it gives the eventDelay \(eventDelay), not a number of seconds from 0 to \(MockAnswer.maximumDelay.seconds.compactText)")
            }
            if let cut = sidecar.cutAfterEvents, !(1...maximumCutAfterEvents).contains(cut) {
                throw refuse("it gives cutAfterEvents \(cut), not from 1 to \(maximumCutAfterEvents)")
            }
            if let error = sidecar.error {
                guard MockFailureKind(rawValue: error) != nil else {
                    let known = MockFailureKind.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
                    throw refuse("its error \"\(HeaderFields.printable(String(error.prefix(100))))\" is not one of \(known)")
                }
                if let status = sidecar.statusCode {
                    throw refuse("it gives both the error \"\(error)\" and the status \(status); a mock either answers or fails")
                }
            }
            return sidecar
        }

        /// A string, or an array of strings for a header sent more than once.
        enum HeaderValues: Codable, Sendable, Equatable {
            case one(String)
            case lines([String])

            init(from decoder: any Decoder) throws {
                let container = try decoder.singleValueContainer()
                if let value = try? container.decode(String.self) {
                    self = .one(value)
                } else {
                    self = .lines(try container.decode([String].self))
                }
            }

            func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                switch self {
                case .one(let value): try container.encode(value)
                case .lines(let values): try container.encode(values)
                }
            }

            init(_ values: [String]) {
                self = values.count == 1 ? .one(values[0]) : .lines(values)
            }

            var values: [String] {
                switch self {
                case .one(let value): [value]
                case .lines(let values): values
                }
            }
        }

        func responseHeaders(defaults: @autoclosure () -> [String: String]) -> ResponseHeaders {
            guard let headers else { return ResponseHeaders(defaults()) }
            var single: [String: String] = [:]
            for (name, value) in headers {
                guard case .one(let text) = value else {
                    return ResponseHeaders(fields: headers.sorted { $0.key < $1.key }.flatMap { name, value in
                        value.values.map { (name: name, value: $0) }
                    })
                }
                single[name] = text
            }
            return ResponseHeaders(single)
        }

        var failure: MockFailureKind? { error.flatMap(MockFailureKind.init(rawValue:)) }

        /// Checked by ``parse(_:path:)``, so it converts without a trap.
        var delayDuration: Duration {
            guard let delay, delay > 0, delay <= MockAnswer.maximumDelay.seconds else { return .zero }
            return .seconds(delay)
        }

        var eventDelayDuration: Duration? {
            guard let eventDelay else { return nil }
            guard eventDelay > 0, eventDelay <= MockAnswer.maximumDelay.seconds else { return .zero }
            return .seconds(eventDelay)
        }
    }
}
