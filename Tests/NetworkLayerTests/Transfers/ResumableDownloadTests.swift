import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// What `/resumable-log/<key>` reports of one request.
struct ResumeLogEntry: Decodable, Sendable, Equatable {
    let range: String?
    let ifRange: String?
    let status: Int
}

@Suite("Resumable downloads", .sharing)
struct ResumableDownloadTests {
    static let size = 200_000

    /// The body `/resumable` serves in `version`: byte i is (i * 7 + version) % 251.
    static func body(version: Int, size: Int = size) -> Data {
        Data((0..<size).map { UInt8(($0 * 7 + version) % 251) })
    }

    static func sha256(_ data: Data) -> String {
        HMACSHA256.sha256(data).map { String(format: "%02x", $0) }.joined()
    }

    func download(_ server: TestServer, key: String, query: String = "", resumes: Bool = true,
                  progress: CallRecorder<TransferProgress>? = nil) async throws -> (outcome: FaultOutcome<DownloadedFile>, file: URL, log: [ResumeLogEntry]) {
        let directory = try temporaryDirectory()
        let destination = directory.appendingPathComponent("file.bin")
        let request = DownloadRequest(server.provider(), "/resumable/\(key)?size=\(Self.size)&cut=0.6\(query)", to: destination)
        request.resumesDownloads = resumes
        if let progress { request.onProgress = { progress.record($0) } }
        let outcome = await FaultOutcome { () throws(NetworkError) in try await makeManager().perform(request) }
        let log = try await makeManager().perform(TestRequest<[ResumeLogEntry]>(server.provider(), "/resumable-log/\(key)"))
        return (outcome, destination, log)
    }

    @Test("A body cut at 60 % continues with Range and If-Range (ETag or Last-Modified); the file is whole", arguments: ["etag", "date"])
    func resumes(validator: String) async throws {
        try await withTestServer { server in
            let progress = CallRecorder<TransferProgress>()
            let (outcome, file, log) = try await download(server, key: "whole-\(validator)", query: "&validator=\(validator)", progress: progress)
            let downloaded = try #require(outcome.value, "\(outcome)")
            #expect(downloaded.size == Int64(Self.size))
            #expect(Self.sha256(try Data(contentsOf: file)) == Self.sha256(Self.body(version: 1)))
            let cut = Self.size * 6 / 10
            let expectedIfRange = validator == "etag" ? "\"v1\"" : "Wed, 21 Oct 2015 07:28:00 GMT"
            #expect(log == [ResumeLogEntry(range: nil, ifRange: nil, status: 200),
                            ResumeLogEntry(range: "bytes=\(cut)-", ifRange: expectedIfRange, status: 206)])
            // Progress counts from the bytes already there, and ends at the whole size.
            let last = try #require(progress.values.last)
            #expect(last.bytesReceived == Int64(Self.size))
            let directory = file.deletingLastPathComponent()
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["file.bin"], "a temporary file was left")
        }
    }

    @Test("When the resource changed (If-Range fails), the server's 200 starts the file over with the new body")
    func changed() async throws {
        try await withTestServer { server in
            let (outcome, file, log) = try await download(server, key: "changed", query: "&change=1")
            #expect(outcome.value?.size == Int64(Self.size), "\(outcome)")
            #expect(Self.sha256(try Data(contentsOf: file)) == Self.sha256(Self.body(version: 2)))
            #expect(log.map(\.status) == [200, 200])
        }
    }

    @Test("A 416 to the range is an error; nothing is left at the destination")
    func refused() async throws {
        try await withTestServer { server in
            let (outcome, file, log) = try await download(server, key: "refused", query: "&refuse=1")
            #expect(outcome.error?.statusCode == 416, "\(outcome)")
            #expect(log.map(\.status) == [200, 416])
            #expect(!FileManager.default.fileExists(atPath: file.path))
            #expect(try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path).isEmpty)
        }
    }

    @Test("Without resumesDownloads the broken download fails as before, and asks for no range")
    func notResumed() async throws {
        try await withTestServer { server in
            let (outcome, file, log) = try await download(server, key: "plain", resumes: false)
            #expect(outcome.error?.caseName == "transport", "\(outcome)")
            #expect(log.map(\.status) == [200])
            #expect(!FileManager.default.fileExists(atPath: file.path))
        }
    }

    @Test("When the resumed attempt cannot be made (its interceptor throws), the partial file is removed")
    func failedResumeLeavesNothing() async throws {
        struct FailsSecondAttempt: RequestInterceptor {
            let calls = Counter()
            struct Refused: Error {}
            func adapt(_ request: inout OutgoingRequest) async throws {
                if calls.increment() > 1 { throw Refused() }
            }
        }
        try await withTestServer { server in
            let directory = try temporaryDirectory()
            let request = DownloadRequest(server.provider(), "/resumable/refused-resume?size=\(Self.size)&cut=0.6",
                                          to: directory.appendingPathComponent("file.bin"))
            request.resumesDownloads = true
            request.interceptors = [FailsSecondAttempt()]
            let outcome = await FaultOutcome { () throws(NetworkError) in try await makeManager().perform(request) }
            #expect(outcome.error?.underlyingError is FailsSecondAttempt.Refused, "\(outcome)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, "a partial file was left")
        }
    }

    @Test("A response without a validator cannot be resumed: If-Range would have nothing to ask with")
    func noValidator() async throws {
        try await withTestServer { server in
            let (outcome, _, log) = try await download(server, key: "novalidator", query: "&validator=none")
            #expect(outcome.error?.caseName == "transport", "\(outcome)")
            #expect(log.count == 1)
        }
    }
}
