import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// A pooled easy handle keeps its options from one plain GET to the next with the same settings
/// (only the URL, the header list and the timeout are set again); any other request resets it. One
/// request after another, every kind in turn, on the handle the pool hands back each time (it
/// is last in, first out): each request is sent and received with its own state and nothing of
/// the request before.
@Suite("Reused transfer handles", .sharing)
struct HandleReuseTests {
    @Test("Requests of every kind, alternating on one pooled handle, each see only their own method, body, headers, credentials, target, limits, progress and TLS settings", .measuring)
    func everyKindSeesOnlyItsOwnState() async throws {
        let server = try await TestServer.shared()
        let net = makeManager()
        let provider = server.provider()
        let kept = CurlTransfer.keptConfigurations.load(ordering: .relaxed)

        /// A plain GET: no body, no custom header, no credentials, the response in memory.
        func expectPlainGET(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
            let echo = try await net.perform(TestRequest<Echo>(provider, path))
            #expect(echo.method == "GET", sourceLocation: sourceLocation)
            #expect(echo.path == path, sourceLocation: sourceLocation)
            #expect(echo.bodyLength == 0, sourceLocation: sourceLocation)
            for name in ["X-First", "X-Posted", "Authorization", "Content-Type", "Content-Length", "Expect"] {
                #expect(echo.header(name) == nil, "\(name) leaked into \(path)", sourceLocation: sourceLocation)
            }
            #expect(echo.header("User-Agent")?.hasPrefix("NetworkLayer/") == true, sourceLocation: sourceLocation)
        }

        // Headers of one request, then none.
        let first = try await net.perform(TestRequest<Echo>(provider, "/echo/first", headers: ["X-First": "1"]))
        #expect(first.header("X-First") == "1")
        try await expectPlainGET("/echo/after-headers")
        try await expectPlainGET("/echo/plain-again")

        // A POST with a body and a type of its own, then a GET.
        let posted = try await net.perform(BodyRequest<Echo>(provider, "/echo/post", body: .data(Data("alpha".utf8), contentType: "text/plain"),
                                                             headers: ["X-Posted": "yes"]))
        #expect(posted.method == "POST")
        #expect(posted.body == "alpha")
        #expect(posted.header("Content-Type") == "text/plain")
        try await expectPlainGET("/echo/after-post")

        // PUT, PATCH and DELETE (custom methods) and a file body.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("reuse-\(UUID().uuidString).txt")
        try Data("from a file".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let put = try await net.perform(BodyRequest<Echo>(provider, "/echo/put", method: .put, body: .file(file, contentType: "text/plain")))
        #expect(put.method == "PUT")
        #expect(put.body == "from a file")
        try await expectPlainGET("/echo/after-put")
        let patched = try await net.perform(BodyRequest<Echo>(provider, "/echo/patch", method: .patch,
                                                              body: .multipart(MultipartFormData().text("part", "multi"))))
        #expect(patched.method == "PATCH")
        #expect(patched.body.contains("multi"))
        try await expectPlainGET("/echo/after-patch")
        let deleted = try await net.perform(TestRequest<Echo>(provider, "/echo/delete", method: .delete))
        #expect(deleted.method == "DELETE")
        try await expectPlainGET("/echo/after-delete")

        // HEAD has no body; the GET after it has one.
        let head = try await net.perform(TestRequest<Data>(provider, "/echo/head", method: .head))
        #expect(head.isEmpty)
        try await expectPlainGET("/echo/after-head")

        // Credentials go with their request only.
        let authorized = AuthProvider(port: server.port, authentication: .bearer("secret-token"))
        let withToken = try await net.perform(TestRequest<Echo>(authorized, "/echo/token"))
        #expect(withToken.header("Authorization") == "Bearer secret-token")
        try await expectPlainGET("/echo/after-token")

        // A download goes to its file; the next body comes back in memory again.
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("reuse-\(UUID().uuidString).bin")
        defer { try? FileManager.default.removeItem(at: destination) }
        let downloaded = try await net.perform(DownloadRequest(provider, "/bytes/1000", to: destination))
        #expect(downloaded.size == 1000)
        let inMemory = try await net.perform(TestRequest<Data>(provider, "/bytes/1000"))
        #expect(inMemory.count == 1000)
        #expect(try Data(contentsOf: destination).count == 1000, "the file grew after its download")

        // Progress is reported to its own request only.
        let progress = ProgressLog()
        let watched = TestRequest<Data>(provider, "/bytes/5000")
        watched.onProgress = { progress.append($0) }
        _ = try await net.perform(watched)
        let reports = progress.all.count
        #expect(reports > 0)
        try await expectPlainGET("/echo/after-progress")
        #expect(progress.all.count == reports, "progress was reported for a later request")

        // A size limit and a timeout hold for their request only.
        let limited = TestRequest<Data>(provider, "/bytes/1000")
        limited.maximumResponseSize = 100
        #expect(await networkError { try await net.perform(limited) } != nil)
        #expect(try await net.perform(TestRequest<Data>(provider, "/bytes/1000")).count == 1000)
        let hurried = TestRequest<Data>(provider, "/delay/1", timeout: 0.2)
        guard case .timeOut? = await networkError({ try await net.perform(hurried) }) else {
            Issue.record("a 0.2 s timeout did not time out")
            return
        }
        let patient = try await net.perform(TestRequest<Data>(provider, "/delay/0.4"))
        #expect(!patient.isEmpty)

        // Eight: the plain GETs above, but for the one with a size limit of its own and the one
        // after it, whose settings differ from their handle's.
        #expect(CurlTransfer.keptConfigurations.load(ordering: .relaxed) - kept >= 8,
                "plain GETs in a row did not keep their handle's options")
    }

    @Test("A stream read to its end leaves its handle to the next stream; transfers stopped mid-body leave none a stream cannot use", .measuring)
    func streamsReuseHandles() async throws {
        let server = try await TestServer.shared()
        let net = makeManager()
        let provider = server.provider()

        func readStream(_ path: String, bytes: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws {
            let stream = try await net.perform(StreamRequest<ByteStream>(provider, path))
            var received = 0
            for try await chunk in stream { received += chunk.count }
            #expect(received == bytes, sourceLocation: sourceLocation)
        }

        try await readStream("/bytes/1000", bytes: 1000)
        let pooled = CurlEngine.streamsOnPooledHandles.load(ordering: .relaxed)
        let kept = CurlTransfer.keptConfigurations.load(ordering: .relaxed)
        for _ in 0..<5 { try await readStream("/bytes/1000", bytes: 1000) }
        #expect(CurlEngine.streamsOnPooledHandles.load(ordering: .relaxed) - pooled >= 5, "streams in a row did not reuse a handle")
        #expect(CurlTransfer.keptConfigurations.load(ordering: .relaxed) - kept >= 5, "streams in a row did not keep their handle's options")

        // A plain GET after streams decodes its body again; a stream after a plain GET asks for no encoding.
        let plain = try await net.perform(TestRequest<Echo>(provider, "/echo/after-streams"))
        #expect(plain.header("Accept-Encoding") != nil, "a plain GET after streams sent no Accept-Encoding")
        var echoed = Data()
        for try await chunk in try await net.perform(StreamRequest<ByteStream>(provider, "/echo/stream-after-plain")) { echoed.append(chunk) }
        #expect(try JSONDecoder().decode(Echo.self, from: echoed).header("Accept-Encoding") == nil,
                "a stream after a plain GET asked for an encoding")

        // A stream on a kept handle still has its silence bound: a server that stops after the head
        // ends it with .timeOut (a stream without one would wait forever: the race's 20 s fail it).
        try await withFaultServer { faults in
            try await readStream("/bytes/1000", bytes: 1000)
            let keptBefore = CurlTransfer.keptConfigurations.load(ordering: .relaxed)
            let silent = try await net.perform(StreamRequest<ByteStream>(faults.provider(), "/stall-after-headers", timeout: 0.5))
            #expect(CurlTransfer.keptConfigurations.load(ordering: .relaxed) == keptBefore + 1, "the silent stream did not keep its handle's options")
            let ending = await withTaskGroup(of: String.self) { group in
                group.addTask {
                    guard let error = await networkError({ for try await _ in silent {} }) else { return "it ended without an error" }
                    if case .timeOut = error { return "timeOut" }
                    return "\(error)"
                }
                group.addTask {
                    try? await Task.sleep(for: .seconds(20))
                    return "no end after 20 s"
                }
                let first = await group.next() ?? "nothing"
                group.cancelAll()
                return first
            }
            #expect(ending == "timeOut")
        }

        // Stopped mid-body: complete responses' transfers by a timeout and by a cancel (their handles
        // go back to the pool), a stream by its reader. The streams after them start and read everything.
        try await withFaultServer { faults in
            let dripping = faults.provider()
            #expect(await networkError { try await net.perform(TestRequest<Data>(dripping, "/drip?interval=0.05", timeout: 0.3)) } != nil)
            let cancelled = Task { try await net.perform(TestRequest<Data>(dripping, "/drip?interval=0.05")) }
            try await Task.sleep(for: .milliseconds(300))
            cancelled.cancel()
            _ = await cancelled.result
            let cut = try await net.perform(StreamRequest<ByteStream>(dripping, "/drip?interval=0.05"))
            for try await _ in cut { break }
        }
        for _ in 0..<5 { try await readStream("/bytes/100000", bytes: 100_000) }
    }

    @Test("A trusted CA bundle and pins stay with the requests that have them")
    func tlsSettingsStayWithTheirRequests() async throws {
        try await withLegitServer { server in
            let trusting = makeTLSManager()
            let pinned = makeTLSManager()
            try pinned.configurePinning([PinningRule(publicKeyHashes: [try pin(of: "unrelated.pem")])], isEnabled: true)
            let plain = makeManager()  // trusts only the system's CAs, which never signed the test certificates
            let provider = server.provider(host: "localhost")

            _ = try await trusting.perform(TestRequest<Echo>(provider, "/echo/trusted"))
            _ = try await trusting.perform(TestRequest<Echo>(provider, "/echo/trusted-again"))
            guard case .invalidCertificate? = await networkError({ try await plain.perform(TestRequest<Echo>(provider, "/echo/untrusted")) }) else {
                Issue.record("a manager without the test CA trusted the server")
                return
            }
            _ = try await trusting.perform(TestRequest<Echo>(provider, "/echo/trusted-after-untrusted"))
            guard case .invalidCertificate? = await networkError({ try await pinned.perform(TestRequest<Echo>(provider, "/echo/pinned")) }) else {
                Issue.record("a wrong pin was accepted")
                return
            }
            let echo = try await trusting.perform(TestRequest<Echo>(provider, "/echo/after-pins"))
            #expect(echo.path == "/echo/after-pins")
        }
    }

    /// libcurl 7.88 counts the retries on a dead reused connection per handle, never zeroing the
    /// count between transfers: a pooled handle that kept its options failed its sixth such retry.
    /// With an idle timeout, the callback that arms it counts the requests instead of the plain counter.
    @Test("A server that closes each kept-alive connection as the next request arrives is retried every time, however long the pooled handle lives",
          .measuring, arguments: [nil, .seconds(30)] as [Duration?])
    func retriesDoNotAccumulateOnAPooledHandle(idleTimeout: Duration?) async throws {
        try await withFaultServer { server in
            let net = makeManager()
            net.timeouts = Timeouts(idle: idleTimeout)
            let kept = CurlTransfer.keptConfigurations.load(ordering: .relaxed)
            let requests = 12
            for index in 0..<requests {
                do {
                    _ = try await net.perform(TestRequest<FaultOK>(server.provider(), "/once"))
                } catch {
                    Issue.record("request \(index + 1) of \(requests) failed: \(error)")
                    return
                }
            }
            // Each request after the first was sent on the connection its predecessor left, which
            // the server then closed, and again on a new one: the retries happened.
            let stats = try await server.stats()
            #expect(stats.connections == requests)
            // The second request ran on the handle the first left configured (the path that
            // skips the reset which would have zeroed libcurl's count).
            #expect(CurlTransfer.keptConfigurations.load(ordering: .relaxed) > kept)
        }
    }
}
