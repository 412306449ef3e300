import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// What `/gunzip` of test_server.py saw.
struct Gunzipped: Decodable, Sendable {
    let contentEncoding: String
    let contentLength: String?
    let receivedLength: Int
    let receivedSHA256: String
    let body: String
}

/// Records the body and headers interceptors see.
struct BodyWitness: RequestInterceptor {
    let seen: CallRecorder<(encoding: String?, body: Data?)>
    func adapt(_ request: inout OutgoingRequest) async throws {
        seen.record((request.value(forHeader: "Content-Encoding"), request.body))
    }
}

/// The SHA-256 of `data` in lowercase hex, as Python's `hexdigest()` writes it.
private func sha256Hex(_ data: Data) -> String {
    var bytes: [UInt8] = []
    SHA256Digest.of(data)?.append(to: &bytes)
    return bytes.map { String(format: "%02x", $0) }.joined()
}

@Suite("Request body compression", .sharing)
struct BodyCompressionTests {
    static let text = String(repeating: "{\"name\": \"Ada Lovelace\", \"role\": \"analyst\"}\n", count: 200)

    @Test("bodyCompression = .gzip: Content-Encoding gzip, Content-Length of what is sent, the server gunzips the original, interceptors see the compressed bytes")
    func gzipOnTheWire() async throws {
        let server = try await TestServer.shared()
        let seen = CallRecorder<(encoding: String?, body: Data?)>()
        let request = BodyRequest<Gunzipped>(server.provider(), "/gunzip", body: .data(Data(Self.text.utf8), contentType: "application/json"))
        request.bodyCompression = .gzip
        request.interceptors = [BodyWitness(seen: seen)]
        let answer = try await makeManager().perform(request)
        #expect(answer.contentEncoding == "gzip")
        #expect(answer.body == Self.text)
        #expect(answer.receivedLength < Self.text.utf8.count / 10)
        #expect(answer.contentLength == "\(answer.receivedLength)")
        // The interceptor saw the bytes that were sent.
        let witnessed = try #require(seen.values.first)
        #expect(witnessed.encoding == "gzip")
        #expect(witnessed.body.map(sha256Hex) == answer.receivedSHA256)
        #expect(witnessed.body?.prefix(2) == Data([0x1F, 0x8B]))
    }

    @Test("Copy-as-curl sends what is sent: the Content-Encoding header and the compressed body")
    func copyAsCurl() async throws {
        let server = try await TestServer.shared()
        let request = BodyRequest<Gunzipped>(server.provider(), "/gunzip", body: .data(Data(Self.text.utf8), contentType: "application/json"))
        request.bodyCompression = .gzip
        let command = try await makeManager().curlCommand(for: request)
        #expect(command.contains("-H 'Content-Encoding: gzip'"), "\(command)")
        #expect(command.contains("--data-binary '@body.bin'"), "\(command)")
        #expect(!command.contains("Ada Lovelace"))
    }

    @Test("A streamed body cannot be compressed: a clear error, nothing sent")
    func streamedBodyRefused() async throws {
        try await withTestServer { server in
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("compress-\(UUID()).txt")
            try Data(Self.text.utf8).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let request = BodyRequest<Gunzipped>(server.provider(), "/gunzip", body: .file(file))
            request.bodyCompression = .gzip
            let outcome = await FaultOutcome { () throws(NetworkError) in try await makeManager().perform(request) }
            #expect(outcome.error?.caseName == "invalidRequest")
            #expect(outcome.error?.context?.reason?.contains("bodyCompression") == true)
            let received = try await server.receivedRequestCount()
            #expect(received == 0)
        }
    }

    @Test("BodyCompressionMiddleware compresses bodies from its minimum size on, leaves smaller ones and encoded ones as they are")
    func middlewareBySize() async throws {
        let server = try await TestServer.shared()
        let net = makeManager()
        net.middlewares = [BodyCompressionMiddleware(minimumSize: 1_000)]
        let large = try await net.perform(BodyRequest<Gunzipped>(server.provider(), "/gunzip", body: .data(Data(Self.text.utf8))))
        #expect(large.contentEncoding == "gzip")
        #expect(large.body == Self.text)
        let small = try await net.perform(BodyRequest<Gunzipped>(server.provider(), "/gunzip", body: .data(Data("tiny".utf8))))
        #expect(small.contentEncoding == "")
        #expect(small.body == "tiny")
        let encoded = try await net.perform(BodyRequest<Gunzipped>(server.provider(), "/gunzip", body: .data(Data(Self.text.utf8)),
                                                                   headers: ["Content-Encoding": "identity"]))
        #expect(encoded.contentEncoding == "identity")
        #expect(encoded.receivedLength == Self.text.utf8.count)
    }

    @Test("gzip output is what gunzip reads back, for empty, small and incompressible bodies")
    func gzipRoundTrip() async throws {
        var random = SeededRandom(seed: 7)
        let noise = Data((0..<70_000).map { _ in UInt8.random(in: 0...255, using: &random) })
        for body in [Data(), Data("a".utf8), Data(Self.text.utf8), noise] {
            let compressed = try BodyCompression.gzip(body)
            #expect(compressed.prefix(2) == Data([0x1F, 0x8B]))
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("gzip-\(UUID()).gz")
            try compressed.write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let (status, restored) = try await runShell("gzip -dc < '\(file.path)'")
            #expect(status == 0)
            #expect(restored == body)
        }
    }
}
