import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// What a call emits (issue 53): its start, a new connection's phases at libcurl's times, the
/// response, its end; under the id the log gives the same call.
@Suite("Call events", .sharing)
struct CallEventsTests {
    @Test("A fresh HTTPS connection emits every phase in order, with times that never decrease; the next request reuses it")
    func freshThenReusedHTTPS() async throws {
        try await withLegitServer { server in
            let net = makeTLSManager()
            let collector = EventCollector()
            let subscription = net.addEventHandler { collector.append($0) }
            defer { subscription.cancel() }
            _ = try await net.perform(TestRequest<Echo>(server.provider(host: "localhost"), "/echo"))
            _ = try await net.perform(TestRequest<Echo>(server.provider(host: "localhost"), "/echo"))
            let ids = await collector.waitForEnds(2)
            try #require(ids.count == 2)
            let first = collector.of(ids[0])
            #expect(first.map(\.kind.name) == ["callStart", "dnsStart", "dnsEnd", "connectStart", "connectEnd", "tlsStart", "tlsEnd",
                                               "connectionAcquired", "requestHeadersSent", "responseHeadersReceived",
                                               "responseBodyEnd", "callEnd"])
            #expect(zip(first, first.dropFirst()).allSatisfy { $0.time <= $1.time }, "\(first.map(\.time))")
            #expect(first.contains { if case .connectionAcquired(reused: false) = $0.kind { true } else { false } })
            #expect(first.contains { if case .responseHeadersReceived(status: 200) = $0.kind { true } else { false } })
            #expect(first.contains { if case .responseBodyEnd(let bytes) = $0.kind { bytes > 0 } else { false } })
            let second = collector.of(ids[1])
            #expect(second.map(\.kind.name) == ["callStart", "connectionAcquired", "requestHeadersSent", "responseHeadersReceived",
                                                "responseBodyEnd", "callEnd"])
            #expect(second.contains { if case .connectionAcquired(reused: true) = $0.kind { true } else { false } })
        }
    }

    @Test("Over plain http:// a new connection has DNS and connect events, and no TLS ones")
    func plainHTTPHasNoTLSEvents() async throws {
        try await withTestServer { server in
            let net = makeManager()
            let collector = EventCollector()
            let subscription = net.addEventHandler { collector.append($0) }
            defer { subscription.cancel() }
            _ = try await net.perform(TestRequest<Echo>(server.provider(), "/echo"))
            let id = try #require(await collector.waitForEnds().first)
            let names = collector.of(id).map(\.kind.name)
            #expect(names.contains("connectEnd") && !names.contains("tlsStart"), "\(names)")
        }
    }

    @Test("A refused connection ends the call with callFailed, carrying the error with the request's secrets redacted")
    func refusedConnectionFails() async throws {
        let net = makeManager()
        let collector = EventCollector()
        let subscription = net.addEventHandler { collector.append($0) }
        defer { subscription.cancel() }
        let provider = TestProvider(host: "127.0.0.1", httpScheme: .http, port: try closedPort())
        await #expect(throws: NetworkError.self) { try await net.perform(TestRequest<Echo>(provider, "/echo?api_key=hunter2")) }
        let id = try #require(await collector.waitForEnds().first)
        let events = collector.of(id)
        #expect(events.first?.kind.name == "callStart")
        guard case .callFailed(let error)? = events.last?.kind else { Issue.record("\(events.map(\.kind.name))"); return }
        guard case .reachability = error else { Issue.record("\(error)"); return }
        let texts = "\(error) \(error.errorDescription ?? "") \(error.context?.request ?? "")"
        #expect(!texts.contains("hunter2") && texts.contains("api_key=<redacted>"), "\(texts)")
    }

    @Test("The events carry the requestID of the call's log entries")
    func requestIDIsTheLogs() async throws {
        let server = try await TestServer.shared()
        let entries = LogEntryCollector()
        let net = makeManager(entries: entries)
        let collector = EventCollector()
        let subscription = net.addEventHandler { collector.append($0) }
        defer { subscription.cancel() }
        _ = try await net.perform(TestRequest<Echo>(server.provider(), "/echo"))
        let id = try #require(await collector.waitForEnds().first)
        #expect(Set(entries.all.map(\.requestID)) == [id])
    }

    @Test("The AsyncSequence form gives the same events, and ends when its reader stops")
    func asyncSequenceForm() async throws {
        let server = try await TestServer.shared()
        let net = makeManager()
        func firstCall() async throws -> [String] {
            let events = net.events()
            _ = try await net.perform(TestRequest<Echo>(server.provider(), "/echo"))
            var names: [String] = []
            for await event in events {
                names.append(event.kind.name)
                if event.kind.endsCall { break }
            }
            return names
        }
        let names = try await firstCall()
        #expect(names.first == "callStart" && names.last == "callEnd" && names.contains("connectionAcquired"), "\(names)")
        // The sequence is gone: its subscription ended, and the manager has none left.
        #expect(net.settings.withLock { $0.eventHub } == nil)
    }

    @Test("A stream's responseBodyEnd comes when its body ends (the call may have ended with its head), with every byte it had")
    func streamBodyEndsAfterTheCall() async throws {
        try await withSSEServer { server in
            let net = makeManager()
            let collector = EventCollector()
            let subscription = net.addEventHandler { collector.append($0) }
            defer { subscription.cancel() }
            let stream = try await net.perform(StreamRequest<ByteStream>(server.provider(), "/bytes?size=100000&chunk=8192"))
            var total = 0
            for try await chunk in stream { total += chunk.count }
            let id = try #require(await collector.waitForEnds().first)
            let deadline = ContinuousClock.now + .seconds(10)
            while !collector.of(id).contains(where: { $0.kind.name == "responseBodyEnd" }), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            let names = collector.of(id).map(\.kind.name)
            let head = try #require(names.firstIndex(of: "responseHeadersReceived"), "\(names)")
            #expect(names.firstIndex(of: "responseBodyEnd").map { $0 > head } == true, "\(names)")
            #expect(collector.of(id).contains { if case .responseBodyEnd(bytes: 100_000) = $0.kind { true } else { false } })
            #expect(total == 100_000)
        }
    }

    @Test("A mocked call, which reaches no connection, emits only callStart and callEnd")
    func mockedCall() async throws {
        let net = makeManager(mocks: fixtureMocks)
        let collector = EventCollector()
        let subscription = net.addEventHandler { collector.append($0) }
        defer { subscription.cancel() }
        _ = try await net.perform(MockedRequest<User>(TestProvider(host: "api.example.com", httpScheme: .https), "/users/7", mock: nil))
        let id = try #require(await collector.waitForEnds().first)
        #expect(collector.of(id).map(\.kind.name) == ["callStart", "callEnd"])
    }
}
