import Foundation
@testable import NetworkLayer

/// Mock sidecar parsing (`<name>.meta.json`): any bytes, read as `MockStore` reads a sidecar.
///
/// Checked against the documented rules, written out plainly here: the sidecar is accepted exactly
/// when its JSON has the sidecar's shape and every value is allowed (a status in 100...599, a
/// delay and a stream's `eventDelay` of 0 to 3600 seconds, a known `error`, not an `error` with a
/// status); a refusal is an `.invalidRequest` naming the file; what is accepted gives delays
/// within bounds and, for an `error`, the failure of that name; and it writes back (as record mode writes sidecars) to a
/// sidecar that reads the same.
enum MockSidecarFuzz {
    private static let path = "/mocks/Fuzz.meta.json"

    /// The sidecar's shape, without its rules.
    private struct Shape: Decodable {
        var statusCode: Int?
        var headers: [String: HeaderValue]?
        var delay: Double?
        var error: String?
        var eventDelay: Double?
    }

    /// A header's value: a string, or an array of strings (a header sent more than once).
    private enum HeaderValue: Decodable {
        case one(String)
        case lines([String])

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let value = try? container.decode(String.self) { self = .one(value) } else { self = .lines(try container.decode([String].self)) }
        }
    }

    static func check(_ data: Data) throws(FuzzFailure) {
        let shape = try? JSONDecoder().decode(Shape.self, from: data)
        let allowed = shape.map(isAllowed) ?? false
        let sidecar: MockStore.Sidecar
        do {
            sidecar = try MockStore.Sidecar.parse(data, path: path)
        } catch {
            guard case .invalidRequest(let context) = error, context.reason?.contains(path) == true else {
                throw FuzzFailure("a refused sidecar gave \(error), not an .invalidRequest naming the file")
            }
            try require(!allowed, "the sidecar \(show(data)) is allowed, yet was refused: \(context.reason ?? "")")
            return
        }
        try require(allowed, "the sidecar \(show(data)) breaks a rule, yet was accepted as \(sidecar)")

        let delay = sidecar.delayDuration
        try require(delay >= .zero && delay <= .seconds(3600), "the sidecar \(show(data)) gives the delay \(delay)")
        if let eventDelay = sidecar.eventDelayDuration {
            try require(eventDelay >= .zero && eventDelay <= .seconds(3600), "the sidecar \(show(data)) gives the eventDelay \(eventDelay)")
        }
        if let error = sidecar.error {
            guard let failure = sidecar.failure else { throw FuzzFailure("the accepted error \(error.debugDescription) names no failure") }
            let networkError = failure.error(request: "GET http://127.0.0.1/fuzz", source: "the sidecar \(path)")
            let named = switch (failure, networkError) {
            case (.reachability, .reachability), (.timeOut, .timeOut), (.invalidCertificate, .invalidCertificate),
                 (.transport, .transport), (.cancelled, .cancelled): true
            default: false
            }
            try require(named, "the error \(error.debugDescription) gives the failure \(networkError)")
        }
        let written: Data
        do {
            written = try JSONEncoder().encode(sidecar)
        } catch {
            throw FuzzFailure("the sidecar \(sidecar) cannot be written back: \(error)")
        }
        do {
            let again = try MockStore.Sidecar.parse(written, path: path)
            try require(again == sidecar, "the sidecar \(sidecar), written back and read again, is \(again)")
        } catch let failure as FuzzFailure {
            throw failure
        } catch {
            throw FuzzFailure("the sidecar \(sidecar), written back as \(show(written)), is refused: \(error)")
        }
    }

    private static func isAllowed(_ shape: Shape) -> Bool {
        if let status = shape.statusCode, status < 100 || status > 599 { return false }
        if let delay = shape.delay, !(delay >= 0 && delay <= 3600) { return false }
        if let eventDelay = shape.eventDelay, !(eventDelay >= 0 && eventDelay <= 3600) { return false }
        if let error = shape.error {
            guard ["reachability", "timeOut", "invalidCertificate", "transport", "cancelled"].contains(error) else { return false }
            if shape.statusCode != nil { return false }
        }
        return true
    }

    private static func show(_ data: Data) -> String {
        String(decoding: data.prefix(200), as: UTF8.self).debugDescription
    }
}
