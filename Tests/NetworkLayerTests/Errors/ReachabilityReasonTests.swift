import CNetworkLayerCurl
import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// `.reachability` says which of its causes it was (``NetworkError/ReachabilityReason``), so that
/// a service's alert tells a name that does not resolve from a server that is down from a network
/// that is gone without parsing libcurl's text: against real conditions, then the mapping itself.
@Suite("Why a host could not be reached", .sharing)
struct ReachabilityReasonTests {
    static func failure(host: String, port: Int?) async throws -> NetworkError {
        let provider = TestProvider(host: host, httpScheme: .http, port: port)
        return try #require(await networkError { try await makeManager().perform(TestRequest<JSONValue>(provider, "/x", timeout: 5)) })
    }

    @Test("A host name that does not resolve (.invalid) is .hostNotFound, in the error and in its logfmt line")
    func hostNotFound() async throws {
        let error = try await Self.failure(host: "nothing-here.invalid", port: nil)
        #expect(error.code == "reachability", "\(error)")
        #expect(error.reachabilityReason == .hostNotFound)
        #expect(error.context?.reachabilityReason == .hostNotFound)
        #expect(error.logfmtDescription.hasPrefix("error=reachability reachability=hostNotFound request="), "\(error.logfmtDescription)")
        #expect(String(reflecting: error).contains("reachabilityReason: .hostNotFound"), "\(String(reflecting: error))")
    }

    @Test("A closed port on 127.0.0.1 is .connectionRefused, and the reason says the connection was refused")
    func connectionRefused() async throws {
        let error = try await Self.failure(host: "127.0.0.1", port: try closedPort())
        #expect(error.code == "reachability", "\(error)")
        #expect(error.reachabilityReason == .connectionRefused)
        #expect(error.context?.reason?.hasPrefix("the connection was refused (") == true, "\(error)")
    }

    // Linux refuses a TCP connect to a multicast address with ENETUNREACH (tcp_v4_connect), whatever
    // the routes: a network that cannot be reached, on any machine, with no packet sent.
    @Test("An address no connection can reach (multicast 224.0.0.1) is .networkUnreachable")
    func networkUnreachable() async throws {
        let error = try await Self.failure(host: "224.0.0.1", port: 9)
        #expect(error.code == "reachability", "\(error)")
        #expect(error.reachabilityReason == .networkUnreachable)
        #expect(error.context?.reason?.hasPrefix("the network is unreachable (") == true, "\(error)")
    }

    @Test("Other errors have no reason; one made in code is .other; one with a reason keeps it through a mock")
    func madeInCode() async throws {
        #expect(NetworkError.timeOut.reachabilityReason == nil)
        #expect(NetworkError.generic(code: 500).reachabilityReason == nil)
        #expect(NetworkError.reachability.reachabilityReason == .other)
        var context = NetworkError.Context(reason: "the rehearsed DNS outage")
        context.reachabilityReason = .hostNotFound
        let net = makeManager()
        net.areMocksEnabled = true
        net.mocks.register(.get, "/x", .failure(.reachability(context)))
        let error = try #require(await networkError {
            try await net.perform(TestRequest<JSONValue>(TestProvider(host: "127.0.0.1", httpScheme: .http, port: 9), "/x"))
        })
        #expect(error.reachabilityReason == .hostNotFound, "\(error)")
    }

    @Test("The mapping: a resolve failure is .hostNotFound; a failed connect by its errno; a Unix socket, an interface or a proxy's refusal .other",
          arguments: [
              (CURLE_COULDNT_RESOLVE_HOST, Int32(0), NetworkError.ReachabilityReason.hostNotFound, "the host name could not be resolved"),
              (CURLE_COULDNT_RESOLVE_PROXY, 0, .hostNotFound, "the host name could not be resolved"),
              (CURLE_COULDNT_CONNECT, ECONNREFUSED, .connectionRefused, "the connection was refused"),
              (CURLE_COULDNT_CONNECT, ENETUNREACH, .networkUnreachable, "the network is unreachable"),
              (CURLE_COULDNT_CONNECT, EHOSTUNREACH, .networkUnreachable, "the host is unreachable (no route to it)"),
              (CURLE_COULDNT_CONNECT, 0, .other, "the connection was refused or the network is unreachable"),
              (CURLE_COULDNT_CONNECT, ETIMEDOUT, .other, "the connection was refused or the network is unreachable"),
          ])
    func mapping(code: CURLcode, errno: Int32, expected: NetworkError.ReachabilityReason, reason: String) throws {
        let error = try CurlErrorMappingTests.map(code, .init(osErrno: errno))
        #expect(error.reachabilityReason == expected)
        #expect(error.context?.reason == "\(reason) (libcurl says so)")
    }

    @Test("Through a proxy or a Unix socket: the proxy's name is .hostNotFound, its refusal by errno, a refused tunnel .other")
    func mappingOfRoutes() throws {
        let proxy = "http://proxy.example:3128"
        #expect(try CurlErrorMappingTests.map(CURLE_COULDNT_RESOLVE_PROXY, .init(proxy: proxy)).reachabilityReason == .hostNotFound)
        #expect(try CurlErrorMappingTests.map(CURLE_COULDNT_CONNECT, .init(osErrno: ECONNREFUSED, proxy: proxy)).reachabilityReason
                == .connectionRefused)
        #expect(try CurlErrorMappingTests.map(CURLE_COULDNT_CONNECT, .init(proxy: proxy, proxyConnectStatus: 403)).reachabilityReason
                == .other)
        #expect(try CurlErrorMappingTests.map(CURLE_PROXY, .init(proxy: proxy)).reachabilityReason == .other)
        #expect(try CurlErrorMappingTests.map(CURLE_COULDNT_CONNECT, .init(unixSocketPath: "/tmp/x.sock", osErrno: ECONNREFUSED))
                .reachabilityReason == .connectionRefused)
        #expect(try CurlErrorMappingTests.map(CURLE_COULDNT_CONNECT, .init(unixSocketPath: "/tmp/x.sock", osErrno: ENOENT))
                .reachabilityReason == .other)
        #expect(try CurlErrorMappingTests.map(CURLE_INTERFACE_FAILED, .init(networkInterface: "nope0")).reachabilityReason == .other)
    }
}
