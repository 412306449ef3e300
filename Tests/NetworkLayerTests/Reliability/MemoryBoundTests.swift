import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

extension Reliability {
    /// A gzip bomb, huge or countless headers and a lying Content-Length do not grow the process.
    ///
    /// Memory is the peak resident set size, sampled every 2 ms while the requests run, over the
    /// size before they started. It is the whole process's, and other suites run alongside, so the
    /// bound is generous (32 MB, where the faults, were they not bounded, would cost 50 MB to
    /// gigabytes) and a case measures up to three times, keeping the smallest growth: a real leak
    /// or unbounded buffer shows in every attempt, a neighbour's allocation rarely in three.
    /// These tests run one at a time so that they do not measure one another.
    @Suite("Bounded memory", .serialized, .measuring)
    struct MemoryBoundTests {
        static let bound = 32 << 20
        static let limit = 1 << 20
        static let bombSize: Int64 = 50 << 20

        /// The smallest peak growth over up to three runs of `body`, and the last run's value.
        static func smallestGrowth<T: Sendable>(_ body: () async -> T) async -> (value: T, growth: Int) {
            var best = Int.max
            var last: T?
            for _ in 1...3 {
                let (value, growth) = await peakMemoryGrowth(during: body)
                last = value
                best = min(best, growth)
                if best < bound { break }
            }
            return (last!, best)
        }

        @Test("A gzip bomb (50 MB from a few KB) under maximumResponseSize fails fast without growing memory",
              arguments: ["/gzip-bomb", "/gzip-bomb?layers=2"])
        func gzipBomb(path: String) async throws {
            try await withFaultServer { server in
                let net = makeManager()
                let provider = server.provider()
                // The server compresses the bomb on first use; do that outside the measurement.
                let directory = try temporaryDirectory()
                defer { try? FileManager.default.removeItem(at: directory) }
                let destination = directory.appendingPathComponent("bomb.bin")
                // The bomb is real: streamed to a file without a limit (nor the decompression
                // guard, which would stop it too), it inflates to 50 MB.
                let download = DownloadRequest(provider, path, to: destination, timeout: 10)
                download.decompressionLimit = DecompressionLimit.none
                let file = try await net.perform(download)
                #expect(file.size == Self.bombSize)
                try? FileManager.default.removeItem(at: destination)

                let timeout: TimeInterval = 2
                await learnEngineThread(via: provider)
                let (((outcome, elapsed), waited), growth) = await Self.smallestGrowth {
                    await withCoreWaits {
                        await timedOnOwnExecutor {
                            await FaultOutcome { () throws(NetworkError) in
                                let request = TestRequest<Data>(provider, path, timeout: timeout)
                                request.maximumResponseSize = Self.limit
                                return try await net.perform(request)
                            }
                        }
                    }
                }
                #expect(growth < Self.bound, "the process grew by \(growth >> 20) MB")
                #expect(elapsed < .seconds(timeout) + .milliseconds(250) + waited, "\(elapsed) (waits for a core: \(waited))")
                guard case .transport(let context)? = outcome.error else {
                    Issue.record("expected .transport, got \(outcome)")
                    return
                }
                #expect(context.reason?.contains("larger than the limit of \(Self.limit) bytes (counted after decompression)") == true,
                        "\(String(describing: context.reason))")
                let ok = try await net.perform(TestRequest<FaultOK>(provider, "/ok", timeout: 5))
                #expect(ok.ok)
            }
        }

        @Test("Huge and countless headers, twenty requests at once, do not grow memory")
        func hugeHeaders() async throws {
            try await withFaultServer { server in
                let net = makeManager()
                let provider = server.provider()
                let paths = Array(repeating: ["/huge-header", "/many-headers", "/many-small-headers"], count: 7).flatMap { $0 }
                let (outcomes, growth) = await Self.smallestGrowth {
                    await withTaskGroup(of: (String, FaultOutcome<FaultOK>).self) { group in
                        for path in paths {
                            group.addTask {
                                (path, await FaultOutcome { () throws(NetworkError) in
                                    try await net.perform(TestRequest<FaultOK>(provider, path, timeout: 2))
                                })
                            }
                        }
                        return await group.reduce(into: []) { $0.append($1) }
                    }
                }
                #expect(growth < Self.bound, "the process grew by \(growth >> 20) MB")
                #expect(outcomes.count == paths.count)
                for (path, outcome) in outcomes {
                    switch (path, outcome) {
                    case ("/huge-header", .failure(let error)), ("/many-headers", .failure(let error)):
                        #expect(error.caseName == "transport", "\(path): \(error)")
                    case ("/many-small-headers", .success(let ok)):
                        // 10,000 headers in 130 KB is within libcurl's limits, and legal HTTP.
                        #expect(ok.ok)
                    default:
                        Issue.record("\(path): \(outcome)")
                    }
                }
                let ok = try await net.perform(TestRequest<FaultOK>(provider, "/ok", timeout: 5))
                #expect(ok.ok)
            }
        }

        @Test("A Content-Length claim of 60 MB, ten requests at once, does not allocate 600 MB")
        func lyingContentLength() async throws {
            try await withFaultServer { server in
                let net = makeManager()
                let provider = server.provider()
                let (errors, growth) = await Self.smallestGrowth {
                    await withTaskGroup(of: NetworkError?.self) { group in
                        for _ in 0..<10 {
                            group.addTask {
                                await FaultOutcome { () throws(NetworkError) in
                                    try await net.perform(TestRequest<Data>(provider, "/lying-length", timeout: 2))
                                }.error
                            }
                        }
                        return await group.reduce(into: []) { $0.append($1) }
                    }
                }
                #expect(growth < Self.bound, "the process grew by \(growth >> 20) MB")
                #expect(errors.count == 10)
                #expect(errors.allSatisfy { $0?.curlCode == 18 }, "\(errors)")
            }
        }
    }
}
