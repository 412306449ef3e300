import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// What `Tests/Servers/har_reader.py` read with haralyzer.
struct HARReport: Decodable, Sendable {
    struct Entry: Decodable, Sendable {
        let method: String
        let url: String
        let status: Int
        let requestHeaders: [String: String]
        let responseHeaders: [String: String]
        let requestText: String?
        let responseText: String?
        let responseEncoding: String?
        let contentSize: Int
        let timings: [String: Double]
        let time: Double
        let started: String
        let serverIPAddress: String?
        let error: String?
    }
    let version: String
    let entries: [Entry]
}

/// `traffic` exported and read back by haralyzer, in a process of its own.
func readBack(_ traffic: RecordedTraffic) async throws -> (report: HARReport, raw: Data) {
    let har = try traffic.har()
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("traffic-\(UUID().uuidString.prefix(8)).har")
    try har.write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let python = HTTPBinServer.python.path
    let (status, output) = try await runShell("'\(python)' '\(testsDirectory.appendingPathComponent("Servers/har_reader.py").path)' '\(file.path)'")
    #expect(status == 0, "haralyzer refused the HAR: \(String(decoding: har.prefix(2000), as: UTF8.self))")
    return (try JSONDecoder().decode(HARReport.self, from: output), har)
}

/// A backend with every kind of secret: a bearer token, an API key query item, a declared secret header.
private struct SecretBackend: ServiceProvider {
    var host = "127.0.0.1"
    var httpScheme: HTTPScheme { .http }
    var port: Int?
    var authentication: Authentication? { .bearer("bearer-token-9f8e7d") }
    var secretHeaderNames: Set<String> { ["X-Tenant-Key"] }
    func createHTTPHeaders() -> [String: String] { ["X-Tenant-Key": "tenant-key-1a2b3c"] }
}

@Suite("Recorded traffic as HAR", .sharing)
struct HARTests {
    @Test("Each hop is an entry haralyzer reads: methods, URLs, statuses, bodies (text and Base64), timings, failures")
    func entriesReadBack() async throws {
        try await withTestServer { server in
            let net = makeManager()
            net.recordsTraffic = true
            _ = try await net.perform(TestRequest<Echo>(server.provider(), "/echo", params: ["q": "swift"]))
            _ = try await net.perform(BodyRequest<Echo>(server.provider(), "/echo", body: .json(object: ["name": "Ada"])))
            _ = try await net.perform(TestRequest<Echo>(server.provider(), "/redirect/1"))
            _ = try await net.perform(TestRequest<Data>(server.provider(), "/bytes/300"))
            let closed = TestProvider(host: "127.0.0.1", httpScheme: .http, port: try closedPort())
            _ = await networkError { try await net.perform(TestRequest<Echo>(closed, "/nowhere")) }

            let (report, _) = try await readBack(net.recordedTraffic)
            #expect(report.version == "1.2")
            #expect(report.entries.map(\.method) == ["GET", "POST", "GET", "GET", "GET", "GET", "GET"])
            #expect(report.entries.map(\.status) == [200, 200, 302, 302, 200, 200, 0])
            let first = report.entries[0]
            #expect(first.url == "http://127.0.0.1:\(server.port)/echo?q=swift")
            #expect(first.requestHeaders["User-Agent"] == TransferPlan.userAgent)
            #expect(first.responseText?.contains("\"path\": \"/echo\"") == true)
            #expect(first.serverIPAddress == "127.0.0.1")
            #expect(first.timings["wait"].map { $0 >= 0 } == true && first.timings["receive"].map { $0 >= 0 } == true)
            #expect(report.entries[1].requestText == #"{"name":"Ada"}"#)
            let binary = report.entries[5]
            #expect(binary.responseEncoding == "base64" && binary.contentSize == 300)
            #expect(Data(base64Encoded: binary.responseText ?? "") == Data((0..<300).map { UInt8($0 % 256) }))
            let failed = report.entries[6]
            #expect(failed.error?.contains("refused") == true, "\(failed)")
        }
    }

    @Test("No secret reaches the HAR: headers, query items, JSON fields and what the server echoes are redacted")
    func secretsRedacted() async throws {
        try await withTestServer { server in
            let net = makeManager()
            net.recordsTraffic = true
            let provider = SecretBackend(port: server.port)
            _ = try await net.perform(TestRequest<Echo>(provider, "/echo", params: ["api_key": "query-key-4d5e6f"]))
            _ = try await net.perform(BodyRequest<Echo>(provider, "/echo", body: .json(object: ["password": "json-secret-7g8h"])))
            let sigV4 = SigV4Provider(port: server.port, authentication: .awsSigV4(accessKeyID: "AKIDHAR", secretAccessKey: "sigv4-secret-0z9y",
                                                                                  sessionToken: "sigv4-token-1x2w", region: "eu-west-1", service: "s3"))
            _ = try await net.perform(TestRequest<Echo>(sigV4, "/echo"))

            let (report, raw) = try await readBack(net.recordedTraffic)
            let text = String(decoding: raw, as: UTF8.self)
            for secret in ["bearer-token-9f8e7d", "tenant-key-1a2b3c", "query-key-4d5e6f", "json-secret-7g8h", "sigv4-secret-0z9y",
                           "sigv4-token-1x2w", "Signature="] {
                #expect(!text.contains(secret), "\(secret) is in the HAR")
            }
            #expect(report.entries[0].requestHeaders["Authorization"] == "<redacted>")
            #expect(report.entries[0].requestHeaders["X-Tenant-Key"] == "<redacted>")
            #expect(report.entries[0].url.contains("api_key=%3Credacted%3E") || report.entries[0].url.contains("api_key=<redacted>"),
                    "\(report.entries[0].url)")
            #expect(report.entries[2].requestHeaders["X-Amz-Date"] != nil)
        }
    }

    @Test("A secret the server echoes in a response header or its Content-Type, or the URL carries under another name, is scrubbed, as in the log")
    func echoedSecretsScrubbed() async throws {
        try await withTestServer { server in
            let net = makeManager()
            net.recordsTraffic = true
            let provider = SecretBackend(port: server.port)
            // The server sends each request header back as `X-Reflected-<name>`.
            _ = try await net.perform(TestRequest<Data>(provider, "/reflect-headers"))
            _ = try await net.perform(TestRequest<Data>(provider, "/echo", params: ["note": "tenant-key-1a2b3c"]))
            // A `Content-Type` quoting the token: the entry's `mimeType` (the `har-text` fuzz target's finding).
            _ = try await net.perform(TestRequest<Data>(provider, "/response-headers", params: ["h": "Content-Type:text/plain; k=bearer-token-9f8e7d"]))

            let (report, raw) = try await readBack(net.recordedTraffic)
            let text = String(decoding: raw, as: UTF8.self)
            for secret in ["bearer-token-9f8e7d", "tenant-key-1a2b3c"] {
                #expect(!text.contains(secret), "\(secret) is in the HAR")
            }
            let reflected = report.entries[0].responseHeaders
            #expect(reflected["X-Reflected-Authorization"]?.contains("<redacted>") == true, "\(reflected)")
            #expect(reflected["X-Reflected-X-Tenant-Key"] == "<redacted>", "\(reflected)")
            #expect(reflected["X-Reflected-User-Agent"] == TransferPlan.userAgent, "\(reflected)")
            let url = report.entries[1].url
            #expect(url.contains("note=<redacted>") || url.contains("note=%3Credacted%3E"), "\(url)")
        }
    }

    @Test("Off by default; on, each request is an entry; removeAll() empties it")
    func offByDefault() async throws {
        try await withTestServer { server in
            let net = makeManager()
            _ = try await net.perform(TestRequest<Echo>(server.provider(), "/echo"))
            #expect(net.recordedTraffic.count == 0)
            net.recordsTraffic = true
            _ = try await net.perform(TestRequest<Echo>(server.provider(), "/echo"))
            #expect(net.recordedTraffic.count == 1)
            net.recordedTraffic.removeAll()
            #expect(net.recordedTraffic.count == 0)
        }
    }

    @Test("Bounded: a 1 GB download is one small entry; a large body keeps its first MB and says so")
    func bounded() async throws {
        try await withTestServer { server in
            let net = makeManager()
            net.recordsTraffic = true
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let gigabyte = 1 << 30
            let download = DownloadRequest(server.provider(), "/slow-bytes/\(gigabyte)?chunk=4194304&interval=0",
                                           to: directory.appendingPathComponent("big.bin"), timeout: 300)
            let file = try await net.perform(download)
            #expect(file.size == Int64(gigabyte))
            try FileManager.default.removeItem(at: file.url)
            _ = try await net.perform(TestRequest<Data>(server.provider(), "/slow-bytes/\(3 << 20)?chunk=1048576&interval=0"))

            let (report, raw) = try await readBack(net.recordedTraffic)
            #expect(raw.count < 3 * RecordedTraffic.bodyLimit, "the HAR holds \(raw.count) bytes")
            #expect(report.entries[0].contentSize == gigabyte && report.entries[0].responseText == "")
            #expect(report.entries[1].contentSize == 3 << 20)
            #expect(Data(base64Encoded: report.entries[1].responseText ?? "")?.count == RecordedTraffic.bodyLimit)
        }
    }

    @Test("Only what goes on the wire is an entry: a cache hit, a mock and a middleware's own answer are not; a revalidation is, as its 304")
    func onlyTheWire() async throws {
        try await withCacheServer { server in
            try await server.configure("/har-fresh", ["headers": [["Cache-Control", "max-age=60"]], "body": "fresh #{count}"])
            try await server.configure("/har-stale", ["headers": [["Cache-Control", "no-cache"]], "etag": "\"v1\"", "body": "stale #{count}"])
            let net = makeCachingManager()
            net.recordsTraffic = true
            net.networkMiddlewares = [ClosureMiddleware { request, next throws(NetworkError) in
                var request = request
                request.setHeader("X-On-The-Wire", "yes")
                return try await next(request)
            }]
            for path in ["/har-fresh", "/har-fresh", "/har-stale", "/har-stale"] { _ = try await net.perform(CachedText(server, path)) }
            let stubbed = CachedText(server, "/har-stub")
            stubbed.middlewares = [ClosureMiddleware { request, _ in HTTPResponse(statusCode: 200, body: Data("stub".utf8), url: request.url) }]
            #expect(try await net.perform(stubbed) == "stub")
            net.areMocksEnabled = true
            net.mocks.register(.get, "/har-mocked", .data(Data("mock".utf8)))
            #expect(try await net.perform(CachedText(server, "/har-mocked")) == "mock")

            let (report, _) = try await readBack(net.recordedTraffic)
            #expect(report.entries.map(\.status) == [200, 200, 304], "\(report.entries.map(\.url))")
            #expect(report.entries.map { URL(string: $0.url)?.path } == ["/har-fresh", "/har-stale", "/har-stale"])
            #expect(report.entries.allSatisfy { $0.requestHeaders["X-On-The-Wire"] == "yes" }, "an entry is not what went on the wire")
            #expect(report.entries[2].requestHeaders["If-None-Match"] == "\"v1\"")
            #expect(try await server.count("/har-fresh").count == 1)
        }
    }

    @Test("At most entryLimit entries, the newest")
    func entryLimit() {
        let traffic = RecordedTraffic()
        let timings = HAR.Timings(dns: -1, connect: -1, ssl: -1, wait: 0, receive: 0)
        for index in 0..<(RecordedTraffic.entryLimit + 5) {
            traffic.append(HAR.Entry(startedDateTime: "", time: Double(index),
                                     request: .init(method: "GET", url: "", httpVersion: "", headers: [], queryString: [], postData: nil, bodySize: 0),
                                     response: .init(status: 200, statusText: "", httpVersion: "", headers: [],
                                                     content: .init(size: 0, mimeType: "", text: "", encoding: nil, comment: nil),
                                                     redirectURL: "", bodySize: 0),
                                     timings: timings, serverIPAddress: nil, _error: nil))
        }
        #expect(traffic.count == RecordedTraffic.entryLimit)
    }
}
