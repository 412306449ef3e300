import Foundation
import Synchronization
import Testing
@testable import NetworkLayer

/// What `/multipart` reports about a multipart body it parsed.
struct MultipartEcho: Decodable, Sendable {
    struct File: Decodable, Sendable {
        let filename: String
        let contentType: String
        let size: Int
        let sha256: String
    }
    let fields: [String: String]
    let files: [String: File]
    let order: [String]
    let boundary: String
    let contentType: String
}

/// What `/upload-stats` reports about a body it read in pieces.
struct UploadStats: Decodable, Sendable {
    struct Part: Decodable, Sendable {
        let headers: String
        let size: Int
        let sha256: String
    }
    let size: Int
    let sha256: String
    let parts: [Part]?
}

/// A request with an explicit body.
final class BodyRequest<Response: Decodable & Sendable>: BaseRequest<Response> {
    init(_ provider: any ServiceProvider, _ endpoint: String, method: HTTPMethod = .post, body: RequestBody?,
         params: [String: any Sendable] = [:], headers: [String: String] = [:], timeout: TimeInterval = 30) {
        super.init(serviceProvider: provider, endpoint: endpoint)
        httpMethod = method
        self.body = body
        self.params = params
        additionalHeaders = headers
        self.timeout = timeout
    }
}

struct NewUser: Codable, Sendable, Equatable {
    let firstName: String
    let joined: Date
    let tags: [String]
}

/// Checks a file's SHA-256 with `sha256sum`, independently of the code under test, on a
/// Dispatch thread (hashing hundreds of MB must not hold a cooperative thread).
func sha256(of file: URL) async throws -> String {
    try await offCooperativePool { try sha256Blocking(of: file) }
}

private func sha256Blocking(of file: URL) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["sha256sum", file.path]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: output, as: UTF8.self).split(separator: " ").first.map(String.init) ?? ""
}

/// A file of `size` bytes of a repeating pattern, written in 1 MB pieces on a Dispatch thread.
func makeFile(size: Int, in directory: URL, name: String = "upload.bin") async throws -> URL {
    try await offCooperativePool { try makeFileBlocking(size: size, in: directory, name: name) }
}

private func makeFileBlocking(size: Int, in directory: URL, name: String) throws -> URL {
    let url = directory.appendingPathComponent(name)
    guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
        throw TestServerError(description: "could not create \(url.path)")
    }
    let handle = try FileHandle(forWritingTo: url)
    defer { try? handle.close() }
    let piece = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 % 251) })
    var written = 0
    while written < size {
        let count = min(piece.count, size - written)
        try handle.write(contentsOf: piece.prefix(count))
        written += count
    }
    return url
}

/// The process's resident memory in bytes, from /proc.
func residentMemory() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
          let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
    return kilobytes * 1024
}

@Suite struct RequestBodyTests {
    @Test func encodableBodyIsJSONWithTheProvidersEncoder() async throws {
        struct SnakeProvider: ServiceProvider {
            var host = "127.0.0.1"
            var httpScheme: HTTPScheme = .http
            var port: Int?
            var jsonEncoder: JSONEncoder {
                let encoder = JSONEncoder()
                encoder.keyEncodingStrategy = .convertToSnakeCase
                encoder.dateEncodingStrategy = .iso8601
                encoder.outputFormatting = .sortedKeys
                return encoder
            }
        }
        try await withTestServer { server in
            let user = NewUser(firstName: "Ada", joined: Date(timeIntervalSince1970: 0), tags: ["x"])
            let provider = SnakeProvider(port: server.port)
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

    @Test func jsonLiteralBodies() async throws {
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

    @Test func formBodiesAreURLEncoded() async throws {
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

    @Test func aFormBodyFromSomethingThatIsNotAnObjectIsRefused() async throws {
        let provider = TestProvider(host: "127.0.0.1", httpScheme: .http, port: try closedPort())
        let error = await networkError {
            try await makeManager().perform(BodyRequest<Echo>(provider, "/echo", body: .form(encoding: ["a", "b"])))
        }
        guard case .invalidRequest(let context) = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(context.reason?.contains("JSON object") == true)
    }

    @Test func multipartSendsTextDataAndFileFieldsByteForByte() async throws {
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

    @Test func largeMultipartFileIsStreamedWithBoundedMemory() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let size = 256 << 20
        let file = try await makeFile(size: size, in: directory)
        let expected = try await sha256(of: file)
        try await withTestServer { server in
            let form = MultipartFormData().text("name", "big").file("blob", at: file)
            let (stats, growth) = try await measuringPeakMemory {
                try await makeManager().perform(BodyRequest<UploadStats>(server.provider(), "/upload-stats",
                                                                         body: .multipart(form), timeout: 120))
            }
            #expect(stats.parts?.count == 2)
            #expect(stats.parts?.last?.size == size)
            #expect(stats.parts?.last?.sha256 == expected)
            // A 256 MB file loaded into memory would show; streaming stays far below it.
            #expect(growth < 32 << 20, "grew by \(growth) bytes")
        }
    }

    @Test func fileBodyIsStreamedFromDisk() async throws {
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

    @Test func missingUploadFileIsAClearErrorBeforeSending() async throws {
        let error = await networkError {
            try await makeManager().perform(BodyRequest<Echo>(TestProvider(host: "127.0.0.1", httpScheme: .http, port: try closedPort()),
                                                              "/echo", body: .file(URL(fileURLWithPath: "/nonexistent/file.bin"))))
        }
        guard case .invalidRequest(let context) = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(context.reason?.contains("/nonexistent/file.bin") == true)
    }

    @Test func rawDataIsSentAsIsWithItsContentType() async throws {
        let bytes = Data((0..<1024).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try await withTestServer { server in
            let echo = try await makeManager().perform(BodyRequest<Echo>(server.provider(), "/echo",
                method: .patch, body: .data(bytes, contentType: "image/png")))
            #expect(Data(base64Encoded: echo.bodyBase64) == bytes)
            #expect(echo.header("Content-Type") == "image/png")
            #expect(echo.method == "PATCH")
        }
    }

    @Test func headersSetByTheRequestKeepTheirContentType() async throws {
        try await withTestServer { server in
            let echo = try await makeManager().perform(BodyRequest<Echo>(server.provider(), "/echo",
                body: .json(object: ["a": 1]), headers: ["content-type": "application/vnd.api+json"]))
            #expect(echo.header("Content-Type") == "application/vnd.api+json")
            #expect(echo.headerList.filter { $0.first?.lowercased() == "content-type" }.count == 1)
        }
    }

    @Test func withAnExplicitBodyParamsGoToTheQuery() async throws {
        try await withTestServer { server in
            let echo = try await makeManager().perform(BodyRequest<Echo>(server.provider(), "/echo",
                body: .data(Data("raw".utf8)), params: ["page": 2]))
            #expect(echo.query == "page=2")
            #expect(echo.body == "raw")
        }
    }

    @Test(arguments: [(ParameterEncoding.form, HTTPMethod.post, "", "a=1&b=x%20y", "application/x-www-form-urlencoded" as String?),
                      (.query, .post, "a=1&b=x%20y", "", nil),
                      (.json, .get, "", #"{"a":1,"b":"x y"}"#, "application/json"),
                      (.json, .delete, "", #"{"a":1,"b":"x y"}"#, "application/json")])
    func parameterEncodingCanBeChosenPerRequest(encoding: ParameterEncoding, method: HTTPMethod, query: String,
                                                body: String, contentType: String?) async throws {
        try await withTestServer { server in
            let request = TestRequest<Echo>(server.provider(), "/echo", method: method, params: ["a": 1, "b": "x y"])
            request.parameterEncoding = encoding
            let echo = try await makeManager().perform(request)
            #expect(echo.method == method.rawValue)
            #expect(echo.query == query)
            #expect(echo.body == body)
            #expect(echo.header("Content-Type") == contentType)
        }
    }

    @Test(arguments: [(ArrayEncoding.repeatedKeys, "tag=a&tag=b%2Cc"), (.brackets, "tag%5B%5D=a&tag%5B%5D=b%2Cc"),
                      (.commaSeparated, "tag=a,b%2Cc")])
    func arrayEncodingStyles(style: ArrayEncoding, expected: String) async throws {
        try await withTestServer { server in
            let request = TestRequest<Echo>(server.provider(), "/echo", params: ["tag": ["a", "b,c"]])
            request.arrayEncoding = style
            let echo = try await makeManager().perform(request)
            #expect(echo.query == expected)
        }
    }

    @Test func scalarsEncodePredictably() async throws {
        try await withTestServer { server in
            let date = Date(timeIntervalSince1970: 1_700_000_000)
            let optional: String? = nil
            let query = try await makeManager().perform(TestRequest<Echo>(server.provider(), "/echo",
                params: ["t": true, "f": false, "i": -42, "d": 9.99, "w": 3.0, "date": date, "none": optional,
                         "big": UInt64.max, "dec": Decimal(string: "1.10")!]))
            #expect(query.query == "big=18446744073709551615&d=9.99&date=2023-11-14T22%3A13%3A20Z&dec=1.1&f=false&i=-42&t=true&w=3")
            let json = try await makeManager().perform(TestRequest<Echo>(server.provider(), "/echo", method: .post,
                params: ["t": true, "i": -42, "d": 9.99, "date": date, "none": optional]))
            #expect(json.body == #"{"d":9.99,"date":"2023-11-14T22:13:20Z","i":-42,"none":null,"t":true}"#)
        }
    }
}

/// The largest value recorded, from any thread.
final class Peak: Sendable {
    private let storage = Protected(0)
    func record(_ value: Int) { storage.withLock { $0 = max($0, value) } }
    var value: Int { storage.withLock { $0 } }
}
