import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// Bodies given explicitly with `body:` (JSON, form, multipart, file, raw data), as the server
/// received them. Params that become a body are ``ParamsBodyTests``.
@Suite("Explicit request bodies", .sharing)
struct RequestBodyTests {
    @Test(".json(_:) encodes an Encodable with the provider's encoder, or the request's")
    func encodableBodyIsJSONWithTheProvidersEncoder() async throws {
        try await withTestServer { server in
            let user = NewUser(firstName: "Ada", joined: Date(timeIntervalSince1970: 0), tags: ["x"])
            let provider = SnakeCaseEncodingProvider(port: server.port)
            let echo = try await makeManager().perform(BodyRequest<Echo>(provider, "/echo", body: .json(user)))
            #expect(echo.body == #"{"first_name":"Ada","joined":"1970-01-01T00:00:00Z","tags":["x"]}"#)
            #expect(echo.header("Content-Type") == "application/json")

            // The request's encoder wins over the provider's.
            let plain = JSONEncoder()
            plain.outputFormatting = .sortedKeys
            let request = BodyRequest<Echo>(provider, "/echo", body: .json(user))
            request.jsonEncoder = plain
            let echoed = try await makeManager().perform(request)
            #expect(echoed.body == #"{"firstName":"Ada","joined":-978307200,"tags":["x"]}"#)
        }
    }

    @Test(".json(object:) and .json(array:) send the literal as compact JSON with sorted keys")
    func jsonLiteralBodies() async throws {
        try await withTestServer { server in
            let object = try await makeManager().perform(BodyRequest<Echo>(server.provider(), "/echo",
                body: .json(object: ["b": [1, 2.5, true] as [any Sendable], "a": NSNull(), "c": ["d": "é"]])))
            #expect(object.body == #"{"a":null,"b":[1,2.5,true],"c":{"d":"é"}}"#)
            let array = try await makeManager().perform(BodyRequest<Echo>(server.provider(), "/echo",
                method: .put, body: .json(array: ["x", 1, false])))
            #expect(array.body == #"["x",1,false]"#)
            #expect(array.method == "PUT")
        }
    }

    @Test(".form sends URL-encoded fields with one Content-Type, from a dictionary or an Encodable")
    func formBodiesAreURLEncoded() async throws {
        struct Login: Encodable, Sendable {
            let user: String
            let remember: Bool
            let address: [String: String]
        }
        try await withTestServer { server in
            let fields = try await makeManager().perform(BodyRequest<Echo>(server.provider(), "/echo",
                body: .form(["user": "ada lovelace", "tags": ["a", "b&c"], "n": 3])))
            #expect(fields.body == "n=3&tags=a&tags=b%26c&user=ada%20lovelace")
            #expect(fields.header("Content-Type") == "application/x-www-form-urlencoded")
            #expect(fields.headerList.filter { $0.first?.lowercased() == "content-type" }.count == 1)

            let encoded = try await makeManager().perform(BodyRequest<Echo>(server.provider(), "/echo",
                body: .form(encoding: Login(user: "ada", remember: true, address: ["city": "Rome"]))))
            #expect(encoded.body == "address%5Bcity%5D=Rome&remember=true&user=ada")
        }
    }

    @Test(".form(encoding:) of a value that is not a JSON object is .invalidRequest")
    func aFormBodyFromSomethingThatIsNotAnObjectIsRefused() async throws {
        let provider = TestProvider(host: "127.0.0.1", httpScheme: .http, port: try closedPort())
        let error = await networkError {
            try await makeManager().perform(BodyRequest<Echo>(provider, "/echo", body: .form(encoding: ["a", "b"])))
        }
        guard case .invalidRequest(let context) = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(context.reason?.contains("JSON object") == true)
    }

    @Test("Multipart sends text, data and file fields byte for byte, in order, with a fresh boundary each time")
    func multipartSendsTextDataAndFileFieldsByteForByte() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try await makeFile(size: 300_000, in: directory, name: "photo.jpg")
        let bytes = Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try await withTestServer { server in
            let form = MultipartFormData()
                .text("title", "Holiday ✓ \"quoted\"")
                .data("thumbnail", bytes, filename: "thumb.png", mimeType: "image/png")
                .file("photo", at: file, mimeType: "image/jpeg")
            let echo = try await makeManager().perform(BodyRequest<MultipartEcho>(server.provider(), "/multipart",
                                                                                   body: .multipart(form)))
            #expect(echo.fields == ["title": "Holiday ✓ \"quoted\""])
            #expect(echo.order == ["title", "thumbnail", "photo"])
            #expect(echo.files["thumbnail"]?.filename == "thumb.png")
            #expect(echo.files["thumbnail"]?.contentType == "image/png")
            #expect(echo.files["thumbnail"]?.size == 5000)
            let thumbnailFile = directory.appendingPathComponent("thumb.bin")
            try bytes.write(to: thumbnailFile)
            #expect(echo.files["thumbnail"]?.sha256 == (try await sha256(of: thumbnailFile)))
            #expect(echo.files["photo"]?.filename == "photo.jpg")
            #expect(echo.files["photo"]?.contentType == "image/jpeg")
            #expect(echo.files["photo"]?.sha256 == (try await sha256(of: file)))
            #expect(echo.contentType.hasPrefix("multipart/form-data; boundary="))

            // Each body gets its own boundary.
            let again = try await makeManager().perform(BodyRequest<MultipartEcho>(server.provider(), "/multipart",
                                                                                    body: .multipart(form)))
            #expect(again.boundary != echo.boundary)
        }
    }

    @Test("A 256 MB multipart file is streamed with bounded memory")
    func largeMultipartFileIsStreamedWithBoundedMemory() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let size = 256 << 20
        let file = try await makeFile(size: size, in: directory)
        let expected = try await sha256(of: file)
        try await withTestServer { server in
            // name=big, blob=the file, from a process of its own whose peak grows only by what the upload costs.
            let report = try await RequestProbe.send(.multipart("/upload-stats", file: file), port: server.port)
            let stats = try report.decoded(UploadStats.self)
            #expect(stats.parts?.count == 2)
            #expect(stats.parts?.last?.size == size)
            #expect(stats.parts?.last?.sha256 == expected)
            // A 256 MB file loaded into memory would show; streaming stays far below it.
            #expect(report.growth < 32 << 20, "grew by \(report.growth) bytes")
        }
    }

    @Test(".file streams the file from disk")
    func fileBodyIsStreamedFromDisk() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try await makeFile(size: 3_000_001, in: directory)
        try await withTestServer { server in
            let stats = try await makeManager().perform(BodyRequest<UploadStats>(server.provider(), "/upload-stats",
                method: .put, body: .file(file, contentType: "application/x-tar")))
            #expect(stats.size == 3_000_001)
            #expect(stats.sha256 == (try await sha256(of: file)))
        }
    }

    @Test("A missing upload file is .invalidRequest naming it, before anything is sent")
    func missingUploadFileIsAClearErrorBeforeSending() async throws {
        let error = await networkError {
            try await makeManager().perform(BodyRequest<Echo>(TestProvider(host: "127.0.0.1", httpScheme: .http, port: try closedPort()),
                                                              "/echo", body: .file(URL(fileURLWithPath: "/nonexistent/file.bin"))))
        }
        guard case .invalidRequest(let context) = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(context.reason?.contains("/nonexistent/file.bin") == true)
    }

    @Test(".data is sent as is, with its Content-Type")
    func rawDataIsSentAsIsWithItsContentType() async throws {
        let bytes = Data((0..<1024).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try await withTestServer { server in
            let echo = try await makeManager().perform(BodyRequest<Echo>(server.provider(), "/echo",
                method: .patch, body: .data(bytes, contentType: "image/png")))
            #expect(Data(base64Encoded: echo.bodyBase64) == bytes)
            #expect(echo.header("Content-Type") == "image/png")
            #expect(echo.method == "PATCH")
        }
    }

    @Test("A Content-Type the request sets wins over the body's, and is sent once")
    func headersSetByTheRequestKeepTheirContentType() async throws {
        try await withTestServer { server in
            let echo = try await makeManager().perform(BodyRequest<Echo>(server.provider(), "/echo",
                body: .json(object: ["a": 1]), headers: ["content-type": "application/vnd.api+json"]))
            #expect(echo.header("Content-Type") == "application/vnd.api+json")
            #expect(echo.headerList.filter { $0.first?.lowercased() == "content-type" }.count == 1)
        }
    }

    @Test("With an explicit body, params go to the query")
    func withAnExplicitBodyParamsGoToTheQuery() async throws {
        try await withTestServer { server in
            let echo = try await makeManager().perform(BodyRequest<Echo>(server.provider(), "/echo",
                body: .data(Data("raw".utf8)), params: ["page": 2]))
            #expect(echo.query == "page=2")
            #expect(echo.body == "raw")
        }
    }

}

