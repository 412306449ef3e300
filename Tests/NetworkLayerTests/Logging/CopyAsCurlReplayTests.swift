import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// Copy-as-curl renders the transfer plan libcurl is given: replayed with the real `curl` binary
/// against the same echo server, each request reaches the server exactly as the library sent it:
/// the same request line, the same headers in the same order (`User-Agent` and `Accept-Encoding`
/// included), the same body bytes, the same HTTP version.
@Suite("Copy-as-curl replays what was sent", .sharing)
struct CopyAsCurlReplayTests {
    /// Where a case's server listens.
    enum Place: Sendable { case tcp, tls, unixSocket, proxy }

    static let cases: [(name: String, place: Place)] = [
        ("GET with query arrays", .tcp), ("HEAD", .tcp), ("OPTIONS", .tcp), ("DELETE", .tcp), ("POST JSON params", .tcp),
        ("POST without a body", .tcp), ("PUT form params", .tcp), ("PATCH JSON body", .tcp), ("PROPFIND with a body", .tcp),
        ("POST bytes", .tcp), ("POST multipart", .tcp), ("PUT file", .tcp), ("custom and secret headers", .tcp),
        ("basic", .tcp), ("bearer", .tcp), ("compressed response", .tcp), ("through a proxy", .proxy),
        ("over a Unix socket", .unixSocket), ("HTTPS over HTTP/2", .tls), ("path as is", .tcp),
        ("a resolve entry", .tcp),
    ]

    /// The request of case `name` on `provider`; it reads what the server received from the
    /// response's `x-echo` header (a HEAD response has no body).
    static func request(_ name: String, _ provider: EchoProvider, files: URL) throws -> BaseRequest<EchoServer.Received> {
        var provider = provider
        if name == "basic" { provider.authentication = .basic(username: "ada", password: "s3cret pass") }
        if name == "bearer" { provider.authentication = .bearer("tok-123") }
        if name == "a resolve entry", let port = provider.port {
            provider.host = "replay.invalid"
            provider.resolve = [ResolveEntry(host: "replay.invalid", port: port, addresses: ["127.0.0.1"])]
        }
        if name == "custom and secret headers" {
            provider.headers = ["X-Client": "replay", "X-Tenant-Key": "tenant-secret"]
            provider.secretHeaderNames = ["X-Tenant-Key"]
        }
        let endpoint = name == "path as is" ? "/replay/a/../path-as-is/./x" : "/replay/\(name.replacingOccurrences(of: " ", with: "-"))"
        let request = BaseRequest<EchoServer.Received>(serviceProvider: provider, endpoint: endpoint)
        request.parser = { try EchoServer.Received.from($0) }
        switch name {
        case "GET with query arrays": request.params = ["tag": ["a", "b c"], "q": "x&y", "filter": ["year": 1992]]
        case "HEAD": request.httpMethod = .head
        case "OPTIONS": request.httpMethod = .options
        case "DELETE": request.httpMethod = .delete
        case "POST JSON params": request.httpMethod = .post; request.params = ["name": "Ada", "age": 36, "tags": ["x"]]
        case "POST without a body": request.httpMethod = .post
        case "PUT form params": request.httpMethod = .put; request.parameterEncoding = .form; request.params = ["a": "1 2", "b": "ü"]
        case "PATCH JSON body": request.httpMethod = .patch; request.body = .json(["op": "replace", "path": "/name"])
        case "PROPFIND with a body":
            request.httpMethod = HTTPMethod(rawValue: "PROPFIND")
            request.body = .data(Data("<?xml version=\"1.0\"?><propfind xmlns=\"DAV:\"/>".utf8), contentType: "application/xml")
            request.additionalHeaders = ["Depth": "1"]
        case "POST bytes": request.httpMethod = .post; request.body = .data(Data("plain text body\n".utf8), contentType: "text/plain")
        case "POST multipart":
            let file = files.appendingPathComponent("part.txt")
            try Data("file part\n".utf8).write(to: file)
            request.httpMethod = .post
            request.body = .multipart(MultipartFormData().text("title", "Hello").file("upload", at: file, mimeType: "text/plain"))
        case "PUT file":
            let file = files.appendingPathComponent("body.bin")
            try Data((0..<3000).map { UInt8($0 % 251) }).write(to: file)
            request.httpMethod = .put
            request.body = .file(file)
        case "custom and secret headers": request.additionalHeaders = ["X-Request": "r-1", "Accept": "application/json"]
        case "compressed response": request.params = ["gzip": 1]
        case "path as is": request.sendsPathAsIs = true
        default: break
        }
        return request
    }

    @Test("The library and its curl command deliver the same request to the server", arguments: cases.map(\.name))
    func replay(name: String) async throws {
        let place = try #require(Self.cases.first { $0.name == name }?.place)
        let files = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: files) }
        try await withEchoServer(tls: place == .tls, unixSocket: place == .unixSocket) { server in
            let net = place == .tls ? makeTLSManager() : makeManager()
            if place == .proxy {
                try await withTinyProxy { proxy in
                    let provider = server.provider(proxy: .http(proxy.url))
                    try await compare(name, provider: provider, net: net, files: files)
                    #expect(proxy.requests.count == 2, "both went through the proxy: \(proxy.requests)")
                }
            } else {
                try await compare(name, provider: server.provider(), net: net, files: files)
            }
        }
    }

    /// Sends case `name` with the library, then its unredacted curl command, and compares what the
    /// server received from each.
    private func compare(_ name: String, provider: EchoProvider, net: NetworkManager, files: URL) async throws {
        let fromLibrary = try await net.perform(try Self.request(name, provider, files: files))
        let command = try await net.curlCommand(for: try Self.request(name, provider, files: files), redactingSecrets: false)
        #expect(command.hasPrefix("curl -sS "))
        // The response headers to stdout (x-echo is there), the body discarded.
        let (status, output) = try await runShell(curlCommand(command, inserting: "-D - -o /dev/null"))
        #expect(status == 0, "\(command)")
        let header = String(decoding: output, as: UTF8.self).split(separator: "\r\n")
            .first { $0.lowercased().hasPrefix("x-echo:") }.map { $0.dropFirst("x-echo:".count).trimmingCharacters(in: .whitespaces) }
        let json = try #require(header.flatMap { Data(base64Encoded: $0) }, "no x-echo in curl's output: \(command)")
        let fromCurl = try JSONDecoder().decode(EchoServer.Received.self, from: json)

        let (library, curl) = (Self.normalised(fromLibrary), Self.normalised(fromCurl))
        #expect(library.method == curl.method, "\(name)")
        #expect(library.path == curl.path, "\(name)")
        if name == "path as is" { #expect(library.path == "/replay/a/../path-as-is/./x") }
        #expect(library.query == curl.query, "\(name)")
        #expect(library.headers == curl.headers, "\(name): \(command)")
        #expect(library.bodyBytes == curl.bodyBytes, "\(name): \(command)")
        #expect(library.httpVersion == curl.httpVersion, "\(name)")
        #expect(library.values("user-agent") == [TransferPlan.userAgent], "\(name)")
    }

    /// A multipart body's random boundary replaced by a fixed one, so two sends compare.
    static func normalised(_ received: EchoServer.Received) -> EchoServer.Received {
        guard let type = received.values("content-type").first, let range = type.range(of: "boundary=") else { return received }
        let boundary = String(type[range.upperBound...])
        let fixed = String(repeating: "B", count: boundary.count)
        let body = String(decoding: received.bodyBytes, as: UTF8.self).replacingOccurrences(of: boundary, with: fixed)
        return EchoServer.Received(
            method: received.method, path: received.path, query: received.query,
            headers: received.headers.map { $0.first == "content-type" ? [$0[0], $0[1].replacingOccurrences(of: boundary, with: fixed)] : $0 },
            body: Data(body.utf8).base64EncodedString(), httpVersion: received.httpVersion)
    }
}
