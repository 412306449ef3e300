import Dispatch
import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// How events reach their subscribers: never making a request wait, in bounded memory, and only
/// while someone listens.
@Suite("Call event delivery", .sharing)
struct EventDeliveryTests {
    @Test("A handler that blocks holds up only itself: 1,000 requests complete, its buffer stays bounded, the rest is dropped and counted")
    func blockingHandler() async throws {
        let server = try await TestServer.shared()
        let net = makeManager()
        let release = DispatchSemaphore(value: 0)
        let blocking = net.addEventHandler(bufferLimit: 16) { _ in _ = release.wait(timeout: .now() + 60) }
        let collector = EventCollector()
        let quick = net.addEventHandler(bufferLimit: 1_000_000) { collector.append($0) }
        defer {
            blocking.cancel()
            release.signal()
            quick.cancel()
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<125 { _ = try await net.perform(TestRequest<Echo>(server.provider(), "/echo")) }
                }
            }
            try await group.waitForAll()
        }
        #expect(await collector.waitForEnds(1000).count == 1000)
        // Every call has at least six events; the blocked handler holds one, its buffer sixteen.
        let total = collector.all.count
        #expect(total >= 6000)
        #expect(blocking.droppedEvents >= total - 17, "\(blocking.droppedEvents) of \(total)")
        #expect(quick.droppedEvents == 0)
        #expect(net.droppedEvents == blocking.droppedEvents)
    }

    @Test("A cancelled subscription gets nothing more, and the requests after it build no events")
    func cancelStopsDelivery() async throws {
        let server = try await TestServer.shared()
        let net = makeManager()
        let collector = EventCollector()
        let subscription = net.addEventHandler { collector.append($0) }
        _ = try await net.perform(TestRequest<Echo>(server.provider(), "/echo"))
        _ = await collector.waitForEnds(1)
        subscription.cancel()
        let before = collector.all.count
        #expect(TestRequest<Echo>(server.provider(), "/echo").resolved(with: net.settings.withLock { $0 }).events == nil)
        // Plain requests on the handles the evented one used: libcurl must not call its callbacks.
        for _ in 0..<5 { _ = try await net.perform(TestRequest<Echo>(server.provider(), "/echo")) }
        try await Task.sleep(for: .milliseconds(50))
        #expect(collector.all.count == before)
    }

    @Test("Without a subscription a request builds no events (its transfer sets no callback); with one, it does")
    func onlyWhileSubscribed() async throws {
        let net = makeManager()
        let request = TestRequest<Echo>(TestProvider(host: "127.0.0.1", httpScheme: .http, port: 9), "/echo")
        let quiet = request.resolved(with: net.settings.withLock { $0 })
        #expect(quiet.events == nil)
        let transfer = try CurlTransfer(plan: TransferPlan(try quiet.prepare(providerHeaders: [:], credentials: nil)), handle: try CurlEasyHandle())
        #expect(transfer.events == nil && transfer.handle.baseline?.events == false)
        let subscription = net.addEventHandler { _ in }
        let stream = net.events()
        let resolved = request.resolved(with: net.settings.withLock { $0 })
        #expect(resolved.events != nil)
        subscription.cancel()
        #expect(request.resolved(with: net.settings.withLock { $0 }).events != nil)  // the stream still listens
        _ = stream
    }

    @Test("A handle a transfer with events configured is reset before a transfer without events takes it")
    func eventedBaselineIsNotKept() throws {
        let net = makeManager()
        let subscription = net.addEventHandler { _ in }
        defer { subscription.cancel() }
        let request = TestRequest<Echo>(TestProvider(host: "127.0.0.1", httpScheme: .http, port: 9), "/echo")
        let prepared = try request.resolved(with: net.settings.withLock { $0 }).prepare(providerHeaders: [:], credentials: nil)
        let transfer = try CurlTransfer(plan: TransferPlan(prepared), handle: try CurlEasyHandle())
        #expect(transfer.events != nil)
        #expect(transfer.handle.baseline?.events == true)
        #expect(!transfer.handle.keepsBaseline(transfer.options, isHTTPS: false, streams: false, events: false, clientIdentity: 0))
        #expect(transfer.handle.keepsBaseline(transfer.options, isHTTPS: false, streams: false, events: true, clientIdentity: 0))
    }
}
