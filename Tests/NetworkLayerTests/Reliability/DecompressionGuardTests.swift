import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

extension Reliability {
    /// The default decompression guard: a compressed body that expands more than 100 times past
    /// 16 MiB is refused as a bomb, in every encoding libcurl decodes, while ordinary compressed
    /// JSON and small bodies pass; the guard can be raised, removed, or set per request.
    @Suite("Decompression guard", .sharing)
    struct DecompressionGuardTests {
        static let bombSize = 50 * 1024 * 1024

        /// The bombs: 50 MiB of zeros in each encoding (a few bytes to 50 KB on the wire).
        static let bombs: [(path: String, encoding: String)] = [
            ("/gzip-bomb", "gzip"), ("/gzip-bomb?layers=2", "gzip, gzip"),
            ("/fixture/zeros-50MiB.deflate?encoding=deflate", "deflate"),
            ("/fixture/zeros-50MiB.br?encoding=br", "br"), ("/fixture/zeros-50MiB.zst?encoding=zstd", "zstd"),
        ]

        @Test("By default a decompression bomb in any encoding is refused as .transport, saying what to change",
              arguments: bombs.map(\.path))
        func bombsAreRefusedByDefault(path: String) async throws {
            try await withFaultServer { server in
                let net = makeManager()
                #expect(net.decompressionLimit == .standard)
                let error = await networkError { try await net.perform(TestRequest<Data>(server.provider(), path, timeout: 20)) }
                guard case .transport(let context) = error else { Issue.record("got \(String(describing: error))"); return }
                let reason = context.reason ?? ""
                #expect(reason.contains("expanded more than 100 times"), "\(reason)")
                #expect(reason.contains("decompressionLimit"), "\(reason)")
                // The next request on the same manager still works.
                let probe = try await net.perform(TestRequest<FaultOK>(server.provider(), "/ok"))
                #expect(probe.ok)
            }
        }

        @Test("A download to a file is guarded the same way, and leaves nothing at its destination")
        func downloadsAreGuarded() async throws {
            try await withFaultServer { server in
                let directory = try temporaryDirectory()
                defer { try? FileManager.default.removeItem(at: directory) }
                let destination = directory.appendingPathComponent("bomb.bin")
                let error = await networkError {
                    try await makeManager().perform(DownloadRequest(server.provider(), "/gzip-bomb", to: destination, timeout: 20))
                }
                guard case .transport(let context) = error else { Issue.record("got \(String(describing: error))"); return }
                #expect(context.reason?.contains("expanded more than 100 times") == true)
                #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
            }
        }

        @Test("With the guard removed or raised past the bomb's ratio, the bomb is decoded whole",
              arguments: [DecompressionLimit.none, .ratio(5000)])
        func guardCanBeRemovedOrRaised(limit: DecompressionLimit) async throws {
            try await withFaultServer { server in
                let net = makeManager()
                net.decompressionLimit = limit
                let body = try await net.perform(TestRequest<Data>(server.provider(), "/gzip-bomb", timeout: 20))
                #expect(body.count == Self.bombSize)
            }
        }

        @Test("A request's own limit wins over the manager's, both ways")
        func perRequestLimit() async throws {
            try await withFaultServer { server in
                let net = makeManager()
                let open = TestRequest<Data>(server.provider(), "/gzip-bomb", timeout: 20)
                open.decompressionLimit = DecompressionLimit.none
                let decoded = try await net.perform(open)
                #expect(decoded.count == Self.bombSize)

                net.decompressionLimit = DecompressionLimit.none
                let strict = TestRequest<Data>(server.provider(), "/gzip-bomb", timeout: 20)
                strict.decompressionLimit = .ratio(10)
                let error = await networkError { try await net.perform(strict) }
                guard case .transport(let context) = error else { Issue.record("got \(String(describing: error))"); return }
                #expect(context.reason?.contains("expanded more than 10 times") == true)
            }
        }

        @Test("Ordinary compressed JSON larger than the floor passes the default guard")
        func ordinaryCompressedJSONPasses() async throws {
            try await withFaultServer { server in
                let body = try await makeManager().perform(TestRequest<Data>(server.provider(), "/gzip-records?mb=20", timeout: 30))
                #expect(body.count >= 20 * 1024 * 1024)
                let records = try JSONSerialization.jsonObject(with: body) as? [Any]
                #expect((records?.count ?? 0) > 100_000)
            }
        }

        @Test("Below the floor nothing is refused, however well it compresses; a floor of zero checks from the first byte")
        func theFloor() async throws {
            try await withTestServer { server in
                // body.json (13 KB) compresses about 12 times.
                let net = makeManager()
                net.decompressionLimit = .ratio(2)
                let fine = try await net.perform(TestRequest<Data>(server.provider(), "/compressed/gzip"))
                #expect(fine.count > 10_000)
                net.decompressionLimit = .ratio(2, floor: 0)
                let error = await networkError { try await net.perform(TestRequest<Data>(server.provider(), "/compressed/gzip")) }
                guard case .transport(let context) = error else { Issue.record("got \(String(describing: error))"); return }
                #expect(context.reason?.contains("expanded more than 2 times") == true)
            }
        }

        @Test("maximumResponseSize still applies, counted after decompression, with the guard removed")
        func sizeLimitStillApplies() async throws {
            try await withFaultServer { server in
                let net = makeManager()
                net.decompressionLimit = DecompressionLimit.none
                net.maximumResponseSize = 1 << 20
                let error = await networkError { try await net.perform(TestRequest<Data>(server.provider(), "/gzip-bomb", timeout: 20)) }
                guard case .transport(let context) = error else { Issue.record("got \(String(describing: error))"); return }
                #expect(context.reason?.contains("larger than the limit of 1048576 bytes") == true)
            }
        }

        @Test("The limit itself is bounded: ratios below 1 count as 1, negative floors as 0, and no size overflows it")
        func limitArithmetic() {
            #expect(DecompressionLimit.ratio(0).ratio == 1)
            #expect(DecompressionLimit.ratio(-7, floor: -1).floor == 0)
            let limit = DecompressionLimit.ratio(Int.max, floor: 0)
            #expect(!limit.isExceeded(decoded: .max, compressed: .max))
            #expect(!limit.isExceeded(decoded: .max, compressed: 0))
            #expect(DecompressionLimit.ratio(100, floor: 0).isExceeded(decoded: 101, compressed: 1))
            #expect(!DecompressionLimit.ratio(100, floor: 0).isExceeded(decoded: 100, compressed: 1))
            #expect(!DecompressionLimit.none.isExceeded(decoded: .max, compressed: 1))
        }
    }
}
