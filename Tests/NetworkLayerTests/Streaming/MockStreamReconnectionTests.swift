import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// Mock streams cut by their sidecar's `cutAfterEvents` and resumed after `Last-Event-ID`, so an
/// app can rehearse its ``ReconnectPolicy`` without a server. No network: nothing listens on the
/// provider's port.
@Suite("Mock stream reconnection", .sharing)
struct MockStreamReconnectionTests {
    let offline = TestProvider(host: "127.0.0.1", httpScheme: .http, port: try! closedPort())

    static let feed = """
        retry: 100

        id: 1
        data: one

        id: 2
        data: two

        : a comment goes with the event after it
        id: 3
        data: three

        id: 4
        data: four

        id: 5
        data: five


        """

    func request(policy: ReconnectPolicy?) -> StreamRequest<EventStream> {
        let request = StreamRequest<EventStream>(offline, "/feed", mock: "Feed")
        request.reconnectPolicy = policy
        return request
    }

    @Test("A mock cut after every 2 events resumes after Last-Event-ID: every event once, then 204 ends the loop")
    func cutAndResumed() async throws {
        let mocks = try MockDirectory()
        defer { mocks.remove() }
        try mocks.write("Feed", fileExtension: "sse", body: Self.feed)
        try mocks.write("Feed", sidecar: #"{"cutAfterEvents": 2}"#)
        let net = makeManager(mocks: mocks.url)
        let (events, error) = await collect(try await net.perform(request(policy: .eventSource())))
        #expect(error == nil)
        #expect(events.map(\.data) == ["one", "two", "three", "four", "five"])
        #expect(net.mocks.requests.map { $0.value(forHeader: "Last-Event-ID") } == [nil, "2", "4", "5"])
    }

    @Test("A mock whose body ends inside an event reconnects with the last dispatched event's id, as live: every event once, then 204")
    func bodyEndingMidEvent() async throws {
        let mocks = try MockDirectory()
        defer { mocks.remove() }
        let feed = Self.feed + "id: 6\ndata: six, cut\n"
        #expect(feed.hasSuffix("data: five\n\nid: 6\ndata: six, cut\n"))
        try mocks.write("Feed", fileExtension: "sse", body: feed)
        let net = makeManager(mocks: mocks.url)
        let (events, error) = await collect(try await net.perform(request(policy: .eventSource())))
        #expect(error == nil)
        #expect(events.map(\.data) == ["one", "two", "three", "four", "five"])
        #expect(net.mocks.requests.map { $0.value(forHeader: "Last-Event-ID") } == [nil, "5"])
    }

    @Test("A Last-Event-ID that a block without data set resumes the mock after that block, as a live stream's id does")
    func idWithoutData() async throws {
        let mocks = try MockDirectory()
        defer { mocks.remove() }
        try mocks.write("Feed", fileExtension: "sse", body: "id: 1\ndata: one\n\nid: 2\n\nid: 3\ndata: three\n\n")
        let request = request(policy: nil)
        request.additionalHeaders["Last-Event-ID"] = "2"
        let (events, error) = await collect(try await makeManager(mocks: mocks.url).perform(request))
        #expect(error == nil)
        #expect(events.map(\.data) == ["three"])
    }

    @Test("Without a policy the cut ends the loop with .transport, naming cutAfterEvents")
    func cutWithoutPolicy() async throws {
        let mocks = try MockDirectory()
        defer { mocks.remove() }
        try mocks.write("Feed", fileExtension: "sse", body: Self.feed)
        try mocks.write("Feed", sidecar: #"{"cutAfterEvents": 2, "eventDelay": 0.01}"#)
        let (events, error) = await collect(try await makeManager(mocks: mocks.url).perform(request(policy: nil)))
        #expect(events.map(\.data) == ["one", "two"])
        guard case .transport(let context)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(context.reason?.contains("cutAfterEvents") == true)
    }

    @Test("A sidecar's cutAfterEvents outside 1…1,000,000 is refused with a clear error", arguments: ["0", "-1", "1000001", "\"3\""])
    func badCutAfterEvents(value: String) async throws {
        let mocks = try MockDirectory()
        defer { mocks.remove() }
        try mocks.write("Feed", fileExtension: "sse", body: Self.feed)
        try mocks.write("Feed", sidecar: #"{"cutAfterEvents": \#(value)}"#)
        do {
            _ = try await makeManager(mocks: mocks.url).perform(request(policy: nil))
            Issue.record("the sidecar was accepted")
        } catch {
            guard case .invalidRequest(let context) = error else { Issue.record("\(error)"); return }
            #expect(context.reason?.contains("cutAfterEvents") == true || context.reason?.contains("not valid") == true)
        }
    }

    @Test("10,000 streams cancelled while they wait to reconnect leave no thread, descriptor or memory behind", .measuring)
    func tenThousandCancelledReconnections() async throws {
        let mocks = try MockDirectory()
        defer { mocks.remove() }
        try mocks.write("Feed", fileExtension: "sse", body: "retry: 60000\n\n" + Self.feed)
        try mocks.write("Feed", sidecar: #"{"cutAfterEvents": 1}"#)
        let net = makeManager(mocks: mocks.url)
        func round() async throws {
            let stream = try await net.perform(request(policy: .eventSource()))
            let reader = Task { () -> NetworkError? in
                var iterator = stream.makeAsyncIterator()
                do throws(NetworkError) {
                    while try await iterator.next() != nil {}
                    return nil
                } catch {
                    return error
                }
            }
            // The first event, the cut, then a wait of a minute: cancelled at any point of it.
            await Task.yield()
            reader.cancel()
            let error = await reader.value
            guard case .cancelled? = error else { Issue.record("\(String(describing: error))"); return }
        }
        for _ in 0..<200 { try await round() }
        net.mocks.removeAll()
        let before = (ProcessState.descriptors(), ProcessState.threads(), ProcessState.residentBytes())
        for index in 0..<10_000 {
            try await round()
            if index % 1_000 == 999 { net.mocks.removeAll() }  // the registry keeps the requests it answered
        }
        try await Task.sleep(for: .milliseconds(200))
        let after = (ProcessState.descriptors(), ProcessState.threads(), ProcessState.residentBytes())
        #expect(after.0 <= before.0, "descriptors \(before.0) → \(after.0)")
        #expect(after.1 <= before.1 + 2, "threads \(before.1) → \(after.1)")
        #expect(after.2 < before.2 + 16 << 20, "resident \(before.2 >> 20) MB → \(after.2 >> 20) MB")
    }
}

/// What the process holds now, from /proc.
enum ProcessState {
    static func descriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
    }

    static func threads() -> Int {
        field("Threads:") ?? -1
    }

    static func residentBytes() -> Int {
        (field("VmRSS:") ?? 0) * 1024
    }

    private static func field(_ name: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(name) {
            return Int(line.dropFirst(name.count).split(separator: " ").first ?? "")
        }
        return nil
    }
}
