import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// TCP keepalive as the kernel has it: the options of the socket a live stream is read from,
/// found through /proc (the socket's inode in /proc/net/tcp, then the descriptor in /proc/self/fd
/// that is that socket) and read back with getsockopt.
@Suite("TCP keepalive", .sharing)
struct KeepAliveTests {
    /// What the kernel says of this process's established TCP connection to `port` on 127.0.0.1.
    struct SocketOptions: Equatable {
        let keepAlive: Bool
        let idle: Int32
        let interval: Int32
    }

    static func options(ofConnectionTo port: Int) -> [SocketOptions] {
        let inodes = Set(establishedInodes(remotePort: port))
        var found: [SocketOptions] = []
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for name in fds {
            guard let fd = Int32(name),
                  let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)"),
                  target.hasPrefix("socket:["), let inode = Int(target.dropFirst(8).dropLast()), inodes.contains(inode) else { continue }
            func option(_ level: Int32, _ name: Int32) -> Int32 {
                var value: Int32 = -1
                var size = socklen_t(MemoryLayout<Int32>.size)
                return getsockopt(fd, level, name, &value, &size) == 0 ? value : -1
            }
            found.append(SocketOptions(keepAlive: option(SOL_SOCKET, SO_KEEPALIVE) == 1,
                                       idle: option(Int32(IPPROTO_TCP), TCP_KEEPIDLE),
                                       interval: option(Int32(IPPROTO_TCP), TCP_KEEPINTVL)))
        }
        return found
    }

    /// The inodes of established IPv4 connections whose remote port is `port`.
    static func establishedInodes(remotePort port: Int) -> [Int] {
        // Read to its end (a large table comes in several reads; Foundation's file reading may stop short).
        guard let bytes = readProcFile("/proc/net/tcp") else { return [] }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").dropFirst().compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count > 9, fields[3] == "01", let remote = fields[2].split(separator: ":").last,
                  Int(remote, radix: 16) == port else { return nil }
            return Int(fields[9])
        }
    }

    /// The socket options of a stream's connection to a fresh server, read while it is open (a
    /// tick every 200 ms, so that no timeout ends it on a loaded machine).
    static func optionsOfStream(manager: NetworkManager, provider: (SSEServer) -> TestProvider = { $0.provider() })
        async throws -> [SocketOptions] {
        try await withSSEServer { server in
            let stream = try await manager.perform(StreamRequest<EventStream>(provider(server), "/sse/forever?interval=200", timeout: 60))
            var iterator = stream.makeAsyncIterator()
            _ = try await iterator.next()
            // The iterator holds the transfer: kept alive until the options are read.
            return withExtendedLifetime(iterator) { options(ofConnectionTo: server.port) }
        }
    }

    @Test("A stream's connection has the manager's keepalive: SO_KEEPALIVE, TCP_KEEPIDLE and TCP_KEEPINTVL as set")
    func managerKeepAlive() async throws {
        let net = makeManager()
        net.keepAlive = KeepAlive(idle: .seconds(7), interval: .milliseconds(2_500))
        let found = try await Self.optionsOfStream(manager: net)
        #expect(found == [SocketOptions(keepAlive: true, idle: 7, interval: 3)])
    }

    @Test("By default a connection has curl's keepalive: a probe after 60 s, then every 60 s")
    func defaultKeepAlive() async throws {
        #expect(makeManager().keepAlive == .standard)
        #expect(try await Self.optionsOfStream(manager: makeManager()) == [SocketOptions(keepAlive: true, idle: 60, interval: 60)])
    }

    @Test("keepAlive = nil leaves SO_KEEPALIVE off")
    func keepAliveOff() async throws {
        let net = makeManager()
        net.keepAlive = nil
        let found = try await Self.optionsOfStream(manager: net)
        #expect(found.count == 1)
        #expect(found.first?.keepAlive == false)
    }

    @Test("A provider's keepAlive wins over the manager's")
    func providerKeepAlive() async throws {
        struct KeepingProvider: ServiceProvider {
            var host = "127.0.0.1"
            var httpScheme: HTTPScheme = .http
            var port: Int?
            var keepAlive: KeepAlive? { KeepAlive(idle: .seconds(11), interval: .seconds(4)) }
        }
        let found = try await withSSEServer { server in
            let stream = try await makeManager().perform(StreamRequest<EventStream>(KeepingProvider(port: server.port),
                                                                                     "/sse/forever?interval=200", timeout: 60))
            var iterator = stream.makeAsyncIterator()
            _ = try await iterator.next()
            return withExtendedLifetime(iterator) { Self.options(ofConnectionTo: server.port) }
        }
        #expect(found == [SocketOptions(keepAlive: true, idle: 11, interval: 4)])
    }

    @Test("An HTTP/2 connection carrying a stream has the keepalive too")
    func http2KeepAlive() async throws {
        try await withH2PingServer { server in
            let net = makeManager()
            net.keepAlive = KeepAlive(idle: .seconds(9), interval: .seconds(5))
            let stream = try await net.perform(StreamRequest<EventStream>(server.provider(), "/silent?seconds=30", timeout: 60))
            #expect(stream.response.metrics?.httpVersion == "HTTP/2")
            var iterator = stream.makeAsyncIterator()
            #expect(try await iterator.next()?.id == "1")
            withExtendedLifetime(iterator) {
                #expect(Self.options(ofConnectionTo: server.port) == [SocketOptions(keepAlive: true, idle: 9, interval: 5)])
            }
        }
    }

    @Test("Values are whole seconds within 1 … 32,767, whatever is asked")
    func bounds() {
        #expect(KeepAlive(idle: .zero, interval: .seconds(-5)).idleSeconds == 1)
        #expect(KeepAlive(idle: .zero, interval: .seconds(-5)).intervalSeconds == 1)
        #expect(KeepAlive(idle: .milliseconds(1_001), interval: .seconds(1)).idleSeconds == 2)
        #expect(KeepAlive(idle: .seconds(Int64.max), interval: .seconds(99_999)).idleSeconds == 32_767)
        #expect(KeepAlive(idle: .seconds(Int64.max), interval: .seconds(99_999)).intervalSeconds == 32_767)
    }

    @Test("Copy-as-curl says the keepalive: nothing for curl's default, --keepalive-time, or --no-keepalive")
    func copyAsCurl() async throws {
        let provider = TestProvider(host: "127.0.0.1", httpScheme: .http, port: 9)
        let net = makeManager()
        #expect(!(try await net.curlCommand(for: TestRequest<FaultOK>(provider, "/ok"))).contains("keepalive"))
        net.keepAlive = KeepAlive(idle: .seconds(20), interval: .seconds(20))
        #expect(try await net.curlCommand(for: TestRequest<FaultOK>(provider, "/ok")).contains("--keepalive-time 20"))
        net.keepAlive = KeepAlive(idle: .seconds(20), interval: .seconds(5))
        #expect(try await net.curlCommand(for: TestRequest<FaultOK>(provider, "/ok")).hasSuffix("# probes every 5 s after the first (curl's tool sets one time for both)"))
        net.keepAlive = nil
        #expect(try await net.curlCommand(for: TestRequest<FaultOK>(provider, "/ok")).contains("--no-keepalive"))
    }
}
