import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// The requests a manager answered in mock mode (`net.mocks.requests`): what would have gone
/// out, with the real values a test must check, and a redacted description.
@Suite("Recorded requests", .sharing)
struct RecordedRequestTests {
    /// A provider's port with nothing listening: any network attempt fails with `.reachability`.
    let port = try! closedPort()

    /// A manager of the test's own in mock mode that answers every `TestRequest<EmptyResponse>`.
    func answeringManager() -> NetworkManager {
        let net = makeManager(mocks: URL(fileURLWithPath: "/nonexistent-mock-directory"))
        net.mocks.register(TestRequest<EmptyResponse>.self) { _ in .status(204) }
        net.mocks.register(BodyRequest<EmptyResponse>.self) { _ in .status(204) }
        return net
    }

    @Test("A recorded request holds the real method, URL, headers, credentials and body")
    func recordsTheRealValues() async throws {
        let net = answeringManager()
        let provider = AuthProvider(port: port, authentication: .apiKey("canary-key-7", queryItem: "api_key"),
                                    headers: ["Accept": "application/json", "Authorization": "Bearer canary-token-7"])
        let request = BodyRequest<EmptyResponse>(provider, "/orders", method: .put, body: .json(User(id: 7, name: "Ada")),
                                                 params: ["page": 2], headers: ["X-Request": "r1"])
        _ = try await net.perform(request)

        let sent = try #require(net.mocks.requests.last)
        #expect(sent.method == .put)
        #expect(sent.url.absoluteString == "http://127.0.0.1:\(port)/orders?page=2&api_key=canary-key-7")
        #expect(sent.headers == ["Accept": "application/json", "Authorization": "Bearer canary-token-7", "X-Request": "r1",
                                 "Content-Type": "application/json"])
        #expect(sent.value(forHeader: "authorization") == "Bearer canary-token-7")
        let body = try JSONDecoder().decode(User.self, from: try #require(sent.body))
        #expect(body == User(id: 7, name: "Ada"))
    }

    @Test("Its description, debug description and dump are redacted, and show the body by its size only")
    func descriptionIsRedacted() async throws {
        let net = answeringManager()
        let provider = AuthProvider(port: port, authentication: .bearer("canary-token-8"), headers: ["X-Api-Key": "canary-key-8"])
        let request = BodyRequest<EmptyResponse>(provider, "/login?token=canary-query-8", body: .json(object: ["password": "canary-pass-8"]))
        _ = try await net.perform(request)
        let sent = try #require(net.mocks.requests.last)

        var dumped = ""
        dump(sent, to: &dumped)
        for text in [sent.description, sent.debugDescription, "\(sent)", String(reflecting: sent), "\([sent])", dumped] {
            for secret in ["canary-token-8", "canary-key-8", "canary-query-8", "canary-pass-8"] {
                #expect(!text.contains(secret), "\(secret) in \(text)")
            }
            #expect(text.contains("<redacted>"), "\(text)")
        }
        #expect(sent.description.hasPrefix("POST http://127.0.0.1:\(port)/login?token=<redacted> ["))
        #expect(sent.description.contains("Authorization: <redacted>"))
        #expect(sent.description.hasSuffix("] \(sent.body?.count ?? -1) bytes"))
    }

    @Test("A header the provider's adapt(_:) declares secret is recorded as sent and redacted in the description")
    func adaptDeclaredSecretsAreRedacted() async throws {
        let net = answeringManager()
        let provider = SigningProvider(port: port, calls: AdaptCalls()) { request, _ in
            request.setHeader("X-Plain-Looking", "canary-adapted-9", secret: true)
        }
        _ = try await net.perform(TestRequest<EmptyResponse>(provider, "/signed"))
        let sent = try #require(net.mocks.requests.last)
        #expect(sent.value(forHeader: "X-Plain-Looking") == "canary-adapted-9")
        #expect(sent.value(forHeader: "X-Nonce") == "1")
        #expect(!sent.description.contains("canary-adapted-9"))
        #expect(sent.description.contains("X-Nonce: 1"))
    }

    @Test("A multipart body is recorded as the bytes libcurl sends, boundary aside")
    func multipartIsRecordedAsSent() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("notes.txt")
        try Data("a file\r\nwith lines\n".utf8).write(to: file)
        let form = MultipartFormData()
            .text("title", "Holiday \"2024\"")
            .text("na\"me\r\nX-Injected: 1", "quoted")
            .data("thumbnail", Data([0, 1, 2, 255]), filename: "thumb.png")
            .data("raw", Data("bytes".utf8))
            .data("typed", Data("plain".utf8), mimeType: "text/plain")
            .data("named", Data("plain".utf8), filename: "a.TXT")
            .data("blob", Data([9]), filename: "blob.bin", mimeType: "application/x-blob")
            .file("attachment", at: file)
            .file("renamed", at: file, filename: "other.csv", mimeType: "text/csv")

        try await withTestServer { server in
            let live = try await makeManager().perform(BodyRequest<Echo>(server.provider(), "/echo", body: .multipart(form)))
            let liveBody = try #require(Data(base64Encoded: live.bodyBase64))
            let liveContentType = try #require(live.header("Content-Type"))
            let liveBoundary = try #require(Self.boundary(in: liveContentType))

            let net = answeringManager()
            _ = try await net.perform(BodyRequest<EmptyResponse>(server.provider(), "/echo", body: .multipart(form)))
            let sent = try #require(net.mocks.requests.last)
            let contentType = try #require(sent.value(forHeader: "Content-Type"))
            let boundary = try #require(Self.boundary(in: contentType))
            #expect(boundary.count == liveBoundary.count)
            // Latin-1 maps each byte to one character, so the comparison is byte for byte.
            let sentBody = try #require(sent.body)
            let recorded = try #require(String(data: sentBody, encoding: .isoLatin1))
            let expected = try #require(String(data: liveBody, encoding: .isoLatin1)).replacingOccurrences(of: liveBoundary, with: boundary)
            #expect(recorded == expected)
            #expect(sent.body?.count == liveBody.count)
        }
    }

    /// The `boundary=` parameter of a multipart Content-Type.
    static func boundary(in contentType: String) -> String? {
        contentType.range(of: "boundary=").map { String(contentType[$0.upperBound...]) }
    }

    @Test("A file body is recorded as its bytes; over 1 MB, as a description")
    func fileBodies() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let small = try await makeFile(size: 1 << 20, in: directory, name: "small.bin")
        let large = try await makeFile(size: (1 << 20) + 1, in: directory, name: "large.bin")
        let net = answeringManager()
        let provider = TestProvider(host: "127.0.0.1", httpScheme: .http, port: port)

        _ = try await net.perform(BodyRequest<EmptyResponse>(provider, "/upload", body: .file(small)))
        #expect(net.mocks.requests.last?.body == (try Data(contentsOf: small)))

        _ = try await net.perform(BodyRequest<EmptyResponse>(provider, "/upload", body: .file(large)))
        let note = String(decoding: try #require(net.mocks.requests.last?.body), as: UTF8.self)
        #expect(note.hasPrefix("<file body: 1048577 bytes from \(large.path)"), "\(note)")
        #expect(note.contains("larger than 1 MB"))
    }

    @Test("A multipart body over 1 MB is recorded as a description naming its parts; a body of bytes is recorded whole")
    func largeBodies() async throws {
        let net = answeringManager()
        let provider = TestProvider(host: "127.0.0.1", httpScheme: .http, port: port)
        let big = Data(repeating: 7, count: (1 << 20) + 10)
        _ = try await net.perform(BodyRequest<EmptyResponse>(provider, "/upload", body: .multipart(MultipartFormData().text("a", "b").data("big", big))))
        let note = String(decoding: try #require(net.mocks.requests.last?.body), as: UTF8.self)
        #expect(note == #"<multipart body: 2 parts ("a", "big"), not recorded: larger than 1 MB>"#)

        _ = try await net.perform(BodyRequest<EmptyResponse>(provider, "/upload", body: .data(big)))
        #expect(net.mocks.requests.last?.body == big)
    }

    @Test("A file that disappears after the request was prepared is recorded as a description, not a crash")
    func fileGoneAfterPreparing() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("gone.bin")
        try Data("soon gone".utf8).write(to: file)
        let provider = TestProvider(host: "127.0.0.1", httpScheme: .http, port: port)
        let multipart = try BodyRequest<EmptyResponse>(provider, "/upload", body: .multipart(MultipartFormData().file("f", at: file)))
            .resolved().prepare(providerHeaders: [:])
        let plain = try BodyRequest<EmptyResponse>(provider, "/upload", body: .file(file)).resolved().prepare(providerHeaders: [:])
        try FileManager.default.removeItem(at: file)

        for prepared in [multipart, plain] {
            let body = try #require(RecordedRequest(prepared).body)
            let note = String(decoding: body, as: UTF8.self)
            #expect(note.contains("cannot be read") && note.contains(file.path), "\(note)")
        }
    }

    @Test("Only the newest 1,000 requests are kept, oldest first")
    func recordIsCapped() async throws {
        let net = answeringManager()
        let provider = TestProvider(host: "127.0.0.1", httpScheme: .http, port: port)
        for index in 1...1_005 {
            _ = try await net.perform(TestRequest<EmptyResponse>(provider, "/n", headers: ["X-N": "\(index)"]))
        }
        let sent = net.mocks.requests
        #expect(sent.count == MockRegistry.recordedRequestLimit)
        #expect(MockRegistry.recordedRequestLimit == 1_000)
        #expect(sent.first?.value(forHeader: "X-N") == "6")
        #expect(sent.last?.value(forHeader: "X-N") == "1005")
    }

    @Test("A request no mock answers is recorded too, so a test can see what was sent")
    func unansweredRequestsAreRecorded() async throws {
        let net = makeManager(mocks: URL(fileURLWithPath: "/nonexistent-mock-directory"))
        let error = await networkError { try await net.perform(TestRequest<User>(TestProvider(host: "127.0.0.1", httpScheme: .http, port: port), "/nothing")) }
        #expect(error?.caseName == "mockNotFound")
        #expect(net.mocks.requests.map(\.url.path) == ["/nothing"])
    }
}
