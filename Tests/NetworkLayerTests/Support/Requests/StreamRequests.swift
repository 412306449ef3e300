import Foundation
@testable import NetworkLayer

/// A streaming request (``EventStream``, ``ByteStream``, ``JSONLines``) for an endpoint of a test server.
final class StreamRequest<Response: Decodable & Sendable>: BaseRequest<Response> {
    init(_ provider: any ServiceProvider, _ endpoint: String, method: HTTPMethod = .get, timeout: TimeInterval = TestTimeout.seconds(10),
         mock: String? = nil) {
        super.init(serviceProvider: provider, endpoint: endpoint)
        httpMethod = method
        requestTimeout = .seconds(timeout)
        mockedResponseFilename = mock
    }
}

/// The `data` of a tick event of sse_server.py.
struct Tick: Codable, Sendable, Equatable {
    let n: Int
}

/// Reads every event of `stream`; the error that ended it, if one did.
func collect(_ stream: EventStream) async -> (events: [ServerSentEvent], error: NetworkError?) {
    var events: [ServerSentEvent] = []
    do {
        for try await event in stream { events.append(event) }
        return (events, nil)
    } catch {
        return (events, error)
    }
}

/// Feeds `chunks` to a fresh parser and returns every event, as a stream would deliver them.
func parseEvents(_ chunks: [[UInt8]]) throws -> [ServerSentEvent] {
    var parser = ServerSentEventParser()
    var events: [ServerSentEvent] = []
    for chunk in chunks { try parser.feed(Data(chunk), into: &events) }
    parser.finish()
    return events
}

/// `bytes` cut at random places (some pieces empty), by `random`.
func randomChunks(of bytes: [UInt8], using random: inout some RandomNumberGenerator) -> [[UInt8]] {
    var chunks: [[UInt8]] = []
    var start = 0
    while start < bytes.count {
        let length = Int.random(in: 0...min(12, bytes.count - start + 1), using: &random)
        let end = min(bytes.count, start + length)
        chunks.append(Array(bytes[start..<end]))
        start = end
    }
    return chunks
}

/// Reads every line of `stream.lines`; the error that ended it, if one did.
func collectLines(_ stream: ByteStream) async -> (lines: [String], error: NetworkError?) {
    var lines: [String] = []
    do {
        for try await line in stream.lines { lines.append(line) }
        return (lines, nil)
    } catch {
        return (lines, error)
    }
}

/// Reads every value of `stream`; the error that ended it, if one did.
func collectValues<Element>(_ stream: JSONLines<Element>) async -> (values: [Element], error: NetworkError?) {
    var values: [Element] = []
    do {
        for try await value in stream { values.append(value) }
        return (values, nil)
    } catch {
        return (values, error)
    }
}

/// Reads every event of `stream` with the time each arrived.
func collectTimed(_ stream: EventStream) async -> (events: [ServerSentEvent], arrivals: [ContinuousClock.Instant], error: NetworkError?) {
    var events: [ServerSentEvent] = []
    var arrivals: [ContinuousClock.Instant] = []
    do {
        for try await event in stream {
            events.append(event)
            arrivals.append(.now)
        }
        return (events, arrivals, nil)
    } catch {
        return (events, arrivals, error)
    }
}

/// The gaps between consecutive instants.
func gaps(_ instants: [ContinuousClock.Instant]) -> [Duration] {
    zip(instants.dropFirst(), instants).map { $0 - $1 }
}
