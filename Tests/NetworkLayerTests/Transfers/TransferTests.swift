import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

@Suite("Downloads, uploads, limits, timings and copy-as-curl", .sharing)
struct TransferTests {
    @Test("A 128 MB download streams to disk with flat memory and leaves no temporary file")
    func largeDownloadStreamsToDiskWithFlatMemory() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("big.bin")
        let size = 128 << 20
        try await withTestServer { server in
            // In a process of its own, whose peak grows only by what the download costs.
            let report = try await RequestProbe.send(.download("/slow-bytes/\(size)?chunk=4194304&interval=0", to: destination), port: server.port)
            #expect(report.outcome == "success" && report.size == Int64(size), "\(report)")
            #expect(try filesIn(directory) == ["big.bin"], "no temporary file is left")
            // The content is the server's pattern, checked in slices.
            let handle = try FileHandle(forReadingFrom: destination)
            defer { try? handle.close() }
            try handle.seek(toOffset: UInt64(size - 1000))
            let tail = try handle.read(upToCount: 1000) ?? Data()
            #expect(tail == Data(((size - 1000)..<size).map { UInt8($0 % 256) }))
            // A 128 MB body in memory would show; a streamed download keeps memory flat.
            #expect(report.growth < 32 << 20, "grew by \(report.growth) bytes for a \(size)-byte download")
        }
    }

    @Test("A failed download leaves nothing at the destination, and an existing file survives")
    func failedDownloadLeavesNothingAtTheDestination() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("file.bin")
        try await withTestServer { server in
            // A body cut short.
            let partial = await networkError { try await makeManager().perform(DownloadRequest(server.provider(), "/partial", to: destination)) }
            guard case .transport = partial else { Issue.record("got \(String(describing: partial))"); return }
            #expect(try filesIn(directory).isEmpty)
            // A failing status: the error body is decoded, nothing is written.
            let missing = await networkError { try await makeManager().perform(DownloadRequest(server.provider(), "/status/404", to: destination)) }
            guard case .notFound = missing else { Issue.record("got \(String(describing: missing))"); return }
            #expect(try filesIn(directory).isEmpty)
            // An existing file survives a failed download.
            try Data("previous".utf8).write(to: destination)
            _ = await networkError { try await makeManager().perform(DownloadRequest(server.provider(), "/partial", to: destination)) }
            #expect(try Data(contentsOf: destination) == Data("previous".utf8))
            #expect(try filesIn(directory) == ["file.bin"])
        }
    }

    @Test("A cancelled download leaves nothing at the destination")
    func cancelledDownloadLeavesNothingAtTheDestination() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("file.bin")
        try await withTestServer { server in
            let provider = server.provider()
            let task = Task { try await makeManager().perform(DownloadRequest(provider, "/slow-bytes/10000000?chunk=10000&interval=0.01", to: destination)) }
            try await Task.sleep(for: .milliseconds(300))
            #expect(try filesIn(directory).count == 1, "the temporary file exists while downloading")
            task.cancel()
            let error = await networkError { try await task.value }
            guard case .cancelled = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(try filesIn(directory).isEmpty)
        }
    }

    @Test("Download progress is throttled, monotonic and complete")
    func downloadProgressIsMonotonicAndComplete() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withTestServer { server in
            let log = ProgressLog()
            let request = DownloadRequest(server.provider(), "/slow-bytes/2000000?chunk=50000&interval=0.02",
                                          to: directory.appendingPathComponent("p.bin"))
            request.onProgress = { log.append($0) }
            _ = try await makeManager().perform(request)
            let values = log.all
            #expect(values.count >= 3, "\(values.count) reports for a ~0.8 s download")
            #expect(values.count < 40, "throttled: \(values.count) reports")
            #expect(zip(values, values.dropFirst()).allSatisfy { $0.bytesReceived <= $1.bytesReceived })
            #expect(values.last?.bytesReceived == 2_000_000)
            #expect(values.last?.fractionCompleted == 1)
            #expect(values.dropLast().contains { $0.totalBytesExpected == 2_000_000 })
        }
    }

    @Test("Upload progress arrives as an AsyncStream that ends with the request")
    func uploadProgressAsAnAsyncStream() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try await makeFile(size: 20_000_000, in: directory)
        try await withTestServer { server in
            let request = BodyRequest<UploadStats>(server.provider(), "/upload-stats", body: .file(file))
            let updates = request.progressUpdates()
            let collected = Task {
                var values: [TransferProgress] = []
                for await progress in updates { values.append(progress) }
                return values
            }
            let stats = try await makeManager().perform(request)
            let values = await collected.value  // the stream finished with the request
            #expect(stats.size == 20_000_000)
            #expect(zip(values, values.dropFirst()).allSatisfy { $0.bytesSent <= $1.bytesSent })
            #expect(values.last?.bytesSent == 20_000_000)
            #expect(values.last?.totalBytesToSend == 20_000_000)
        }
    }

    @Test("A response over maximumResponseSize fails; exactly the limit passes")
    func responsesOverTheLimitFail() async throws {
        try await withTestServer { server in
            // Announced by Content-Length.
            let request = TestRequest<Data>(server.provider(), "/bytes/5000")
            request.maximumResponseSize = 1000
            let error = await networkError { try await makeManager().perform(request) }
            guard case .transport(let context) = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(context.reason?.contains("larger than the limit of 1000 bytes") == true)

            // A manager-wide limit; and exactly the limit passes.
            let net = makeManager()
            net.maximumResponseSize = 5000
            let body = try await net.perform(TestRequest<Data>(server.provider(), "/bytes/5000"))
            #expect(body.count == 5000)
        }
    }

    @Test("A gzip bomb is stopped at the limit after decompression, with bounded memory")
    func aGzipBombIsStoppedAtTheLimitWithBoundedMemory() async throws {
        try await withTestServer { server in
            // In a process of its own, whose peak grows only by what the request costs.
            let report = try await RequestProbe.send(.limited("/gzip-bomb/\(256 << 20)", maximumResponseSize: 1 << 20), port: server.port)
            #expect(report.outcome == "transport", "\(report)")
            #expect(report.reason?.contains("after decompression") == true, "\(report)")
            // 256 MB inflated would show; stopped at the 1 MB limit, memory stays flat.
            #expect(report.growth < 32 << 20, "grew by \(report.growth) bytes")
        }
    }

    @Test("gzip, deflate, br and zstd responses are decoded transparently",
          arguments: ["gzip", "deflate", "br", "zstd"])
    func compressedResponsesAreDecodedTransparently(encoding: String) async throws {
        let expected = try Data(contentsOf: testsDirectory.appendingPathComponent("Fixtures/Compressed/body.json"))
        try await withTestServer { server in
            let (body, response) = try await makeManager().performWithResponse(TestRequest<Data>(server.provider(), "/compressed/\(encoding)"))
            #expect(body == expected)
            #expect(response.value(forHeader: "Content-Encoding") == encoding)
            let echo = try await makeManager().perform(TestRequest<Echo>(server.provider(), "/echo"))
            let offered = echo.header("Accept-Encoding") ?? ""
            #expect(offered.contains(encoding == "gzip" ? "gzip" : encoding == "deflate" ? "deflate" : encoding), "\(offered)")
        }
    }

    @Test("A body in a coding libcurl cannot decode arrives as it was sent, its Content-Encoding saying what it is; the next transfer is decoded again",
          arguments: ["x-custom", "gzip, x-custom", "FOO"])
    func undecodableCodingPassesThrough(coding: String) async throws {
        let expected = try Data(contentsOf: testsDirectory.appendingPathComponent("Fixtures/Compressed/body.json"))
        try await withTestServer { server in
            let net = makeManager()
            // The server sends its JSON as it is, labelled with the coding: libcurl used to fail the
            // transfer at its first byte ("Unrecognized content encoding type").
            let path = "/response-headers?h=" + ParameterValue.percentEncode("Content-Encoding: \(coding)")
            let (body, response) = try await net.performWithResponse(TestRequest<Data>(server.provider(), path))
            #expect(response.value(forHeader: "Content-Encoding") == coding)
            let sent = try JSONDecoder().decode([String: [[String]]].self, from: body)
            #expect(sent["headers"] == [["Content-Encoding", coding]])
            // The same manager's next transfers (on the handle it keeps) decode again.
            for _ in 0..<3 {
                let decoded = try await net.perform(TestRequest<Data>(server.provider(), "/compressed/gzip"))
                #expect(decoded == expected)
            }
        }
    }

    @Test("An interim 103 naming an unknown coding does not stop the final response's gzip body being decoded")
    func interimResponseCodingIsIgnored() async throws {
        let expected = try Data(contentsOf: testsDirectory.appendingPathComponent("Fixtures/Compressed/body.json"))
        try await withTestServer { server in
            let (body, response) = try await makeManager().performWithResponse(
                TestRequest<Data>(server.provider(), "/early-hints-compressed/gzip"))
            #expect(response.statusCode == 200)
            #expect(response.value(forHeader: "Content-Encoding") == "gzip")
            #expect(body == expected)
        }
    }

    @Test("A known coding with a body that does not decode still fails, naming the coding")
    func knownCodingThatDoesNotDecodeFails() async throws {
        try await withTestServer { server in
            let path = "/response-headers?h=" + ParameterValue.percentEncode("Content-Encoding: gzip")
            do throws(NetworkError) {
                _ = try await makeManager().perform(TestRequest<Data>(server.provider(), path))
                Issue.record("a body labelled gzip that is not gzip was accepted")
            } catch {
                guard case .transport = error else {
                    Issue.record("expected .transport, got \(error)")
                    return
                }
            }
        }
    }

    @Test("Timings are present and in order, with a TLS handshake over HTTPS")
    func timingsArePresentAndOrdered() async throws {
        try await withTestServer { server in
            let (_, response) = try await makeManager().performWithResponse(TestRequest<Data>(server.provider(), "/delay/0.1"))
            let metrics = try #require(response.metrics)
            #expect(metrics.httpVersion == "HTTP/1.1")
            #expect(metrics.remoteAddress == "127.0.0.1")
            #expect(metrics.nameLookup <= metrics.connect)
            #expect(metrics.connect <= metrics.tlsHandshake)
            #expect(metrics.tlsHandshake <= metrics.firstByte)
            #expect(metrics.firstByte <= metrics.total)
            #expect(metrics.firstByte >= .milliseconds(100), "the server waited 100 ms before answering")
            #expect(metrics.bytesReceived == Int64(response.body.count))
        }
        try await withLegitServer { server in
            let (_, response) = try await makeTLSManager().performWithResponse(TestRequest<Echo>(server.provider(host: "localhost"), "/echo"))
            let metrics = try #require(response.metrics)
            #expect(metrics.tlsHandshake > metrics.connect, "a TLS handshake took place")
            #expect(metrics.tlsHandshake <= metrics.firstByte)
        }
    }

    @Test("The curl command replays to the same response")
    func theCurlCommandReplaysToTheSameResponse() async throws {
        try await withTestServer { server in
            let request = TestRequest<Echo>(server.provider(headers: ["X-Trace": "it's \"quoted\""]), "/echo/replay",
                                            method: .post, params: ["name": "Ada Lovelace", "tags": ["a&b", "c d"]])
            let net = makeManager()
            let ours = try await net.perform(request)
            let command = try await net.curlCommand(for: request, redactingSecrets: false)
            #expect(command.hasPrefix("curl "))

            let (status, data) = try await runShell(curlCommand(command, inserting: "--silent --show-error"))
            #expect(status == 0)
            let replayed = try JSONDecoder().decode(Echo.self, from: data)
            #expect(replayed.method == ours.method)
            #expect(replayed.path == ours.path)
            #expect(replayed.query == ours.query)
            #expect(replayed.body == ours.body)
            #expect(replayed.header("X-Trace") == ours.header("X-Trace"))
            #expect(replayed.header("Content-Type") == ours.header("Content-Type"))
        }
    }

    @Test("The curl command redacts secrets by default")
    func theCurlCommandRedactsSecretsByDefault() async throws {
        let provider = AuthProvider(port: 1, authentication: .bearer("canary-bearer"), headers: ["Cookie": "s=canary-cookie"])
        let request = TestRequest<Echo>(provider, "/echo", params: ["access_token": "canary-query"])
        let command = try await makeManager().curlCommand(for: request)
        #expect(!command.contains("canary"))
        #expect(command.contains("<redacted>"))
    }

    @Test("The log shows the timings and the curl command")
    func theLogShowsTimingsAndTheCurlCommand() async throws {
        try await withTestServer { server in
            let log = LogCollector()
            _ = try await makeManager(log: log).perform(TestRequest<Echo>(server.provider(), "/echo"))
            #expect(log.text.contains("$ curl -sS 'http://127.0.0.1:\(server.port)/echo'"))
            #expect(log.text.contains("HTTP/1.1 from 127.0.0.1: dns "))
        }
    }
}
