import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// `sendsPathAsIs` (curl's `--path-as-is`): off, the `.` and `..` segments of a path are removed
/// before sending, as libcurl does by default; on, at any level, the path reaches the server as
/// given, so an object key holding `..` is reachable. The echo server reports the raw request path.
@Suite("Paths sent as given", .sharing)
struct PathAsIsTests {
    static let endpoint = "/objects/a/../b/./key..name"
    static let asGiven = "/objects/a/../b/./key..name"
    static let normalised = "/objects/b/key..name"

    /// A backend on the echo server that may send its paths as given.
    struct PathProvider: ServiceProvider {
        var host = "127.0.0.1"
        var httpScheme: HTTPScheme { .http }
        var port: Int?
        var sendsPathAsIs: Bool?
    }

    static func received(_ net: NetworkManager, _ provider: PathProvider, asIs: Bool? = nil) async throws -> String {
        let request = TestRequest<EchoServer.Received>(provider, endpoint)
        request.sendsPathAsIs = asIs
        return try await net.perform(request).path
    }

    @Test("By default the dot segments are removed before sending; a request, its provider or the manager may send the path as given")
    func eachLevelSendsThePathAsGiven() async throws {
        try await withEchoServer { server in
            let provider = PathProvider(port: server.port)
            let asIsProvider = PathProvider(port: server.port, sendsPathAsIs: true)
            let net = makeManager()
            var paths = [try await Self.received(net, provider), try await Self.received(net, provider, asIs: true),
                         try await Self.received(net, asIsProvider)]
            // The request wins over its provider, the provider over the manager.
            paths.append(try await Self.received(net, asIsProvider, asIs: false))
            net.sendsPathAsIs = true
            paths.append(try await Self.received(net, provider))
            paths.append(try await Self.received(net, PathProvider(port: server.port, sendsPathAsIs: false)))
            #expect(paths == [Self.normalised, Self.asGiven, Self.asGiven, Self.normalised, Self.asGiven, Self.normalised])
        }
    }

    @Test("A pooled handle does not carry the setting to the next request, in either direction")
    func pooledHandleDoesNotCarryTheSetting() async throws {
        try await withEchoServer { server in
            let provider = PathProvider(port: server.port)
            let net = makeManager()
            var paths: [String] = []
            for asIs in [false, true, true, false, true, false] {
                paths.append(try await Self.received(net, provider, asIs: asIs))
            }
            #expect(paths == [false, true, true, false, true, false].map { $0 ? Self.asGiven : Self.normalised })
        }
    }

    @Test("Copy-as-curl says --path-as-is exactly when the path goes as given")
    func copyAsCurlRendersIt() async throws {
        let provider = PathProvider(port: 8080)
        let net = makeManager()
        let plain = try await net.curlCommand(for: TestRequest<EchoServer.Received>(provider, Self.endpoint))
        #expect(!plain.contains("--path-as-is"), "\(plain)")
        let request = TestRequest<EchoServer.Received>(provider, Self.endpoint)
        request.sendsPathAsIs = true
        let asIs = try await net.curlCommand(for: request)
        #expect(asIs.contains("'http://127.0.0.1:8080\(Self.asGiven)' --path-as-is"), "\(asIs)")
    }

    @Test("A SigV4 request whose path goes as given is signed for that path: botocore verifies it (S3 and another service)",
          arguments: ["s3", "execute-api"])
    func sigV4SignsThePathAsSent(service: String) async throws {
        try await withVenvServer("sigv4_server.py", ["--key", "AKIDPATHASIS:path-secret"]) { server in
            let provider = SigV4Provider(port: server.port, authentication: .awsSigV4(
                accessKeyID: "AKIDPATHASIS", secretAccessKey: "path-secret", sessionToken: nil, region: "eu-west-1", service: service))
            let request = TestRequest<SigV4Answer>(provider, "/bucket/a/../key/./name")
            request.sendsPathAsIs = true
            let answer = try await makeManager().perform(request)
            #expect(answer.verified, "\(answer.canonicalRequest)")
            #expect(answer.path == "/bucket/a/../key/./name")
        }
    }
}
