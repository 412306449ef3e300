import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// What `RequestProbe resumable-download` reports.
private struct ResumeProbeReport: Decodable, Sendable {
    let outcome: String
    let size: Int64?
    let reason: String?
    let resumed: Bool?
    let wroteResumeData: Bool?
}

@Suite("Resume data: downloads continued later", .sharing)
struct ResumeDataTests {
    static let size = ResumableDownloadTests.size
    static let cut = Int64(size * 6 / 10)

    /// A download of `/resumable/<key>` into a fresh directory, cut at 60 % the first time.
    func request(_ server: TestServer, key: String, query: String = "", in directory: URL? = nil) throws -> DownloadRequest {
        let directory = try directory ?? temporaryDirectory()
        return DownloadRequest(server.provider(), "/resumable/\(key)?size=\(Self.size)&cut=0.6\(query)",
                               to: directory.appendingPathComponent("file.bin"))
    }

    func log(_ server: TestServer, _ key: String) async throws -> [ResumeLogEntry] {
        try await makeManager().perform(TestRequest<[ResumeLogEntry]>(server.provider(), "/resumable-log/\(key)"))
    }

    func contents(_ directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    @Test("A broken download keeps its part and gives resume data; resuming sends Range with If-Range and the file is whole")
    func brokenThenResumed() async throws {
        try await withTestServer { server in
            let download = try request(server, key: "later")
            let destination = try #require(download.downloadDestination)
            let error = await networkError { try await makeManager().perform(download) }
            let resumeData = try #require(error?.resumeData, "\(String(describing: error))")
            #expect(resumeData.offset == Self.cut)
            #expect(resumeData.validator == "\"v1\"")
            #expect(resumeData.destination == destination)
            #expect(PendingDownload.size(of: resumeData.partialFile) == Self.cut)
            #expect(!FileManager.default.fileExists(atPath: destination.path))

            // Saved and read back, as across a restart.
            let decoded = try JSONDecoder().decode(ResumeData.self, from: JSONEncoder().encode(resumeData))
            #expect(decoded == resumeData)
            let file = try await makeManager().perform(download, resumingFrom: decoded)
            #expect(file.size == Int64(Self.size))
            #expect(try Data(contentsOf: destination) == ResumableDownloadTests.body(version: 1))
            #expect(try contents(destination.deletingLastPathComponent()) == ["file.bin"], "the partial file was left")
            #expect(try await log(server, "later") == [ResumeLogEntry(range: nil, ifRange: nil, status: 200),
                                                      ResumeLogEntry(range: "bytes=\(Self.cut)-", ifRange: "\"v1\"", status: 206)])
        }
    }

    @Test("A cancelled download gives resume data too, and continues from it")
    func cancelledThenResumed() async throws {
        try await withTestServer { server in
            let directory = try temporaryDirectory()
            let first = try request(server, key: "cancelled", query: "&stall=30", in: directory)
            let task = Task { try await makeManager().perform(first) }
            // Cancel once the part before the stall is on disk.
            for _ in 0..<500 {
                let partial = try contents(directory).first { $0.hasSuffix(".download") }
                if let partial, PendingDownload.size(of: directory.appendingPathComponent(partial)) ?? 0 > 0 { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            try await Task.sleep(for: .milliseconds(100))  // the rest of the part, flushed or not: the offset says what is there
            task.cancel()
            let error = await networkError { try await task.value }
            guard case .cancelled = error else { Issue.record("got \(String(describing: error))"); return }
            let resumeData = try #require(error?.resumeData)
            #expect(resumeData.offset > 0 && resumeData.offset <= Self.cut)
            let download = try request(server, key: "cancelled", query: "&stall=30", in: directory)
            let file = try await makeManager().perform(download, resumingFrom: resumeData)
            #expect(file.size == Int64(Self.size))
            #expect(try Data(contentsOf: file.url) == ResumableDownloadTests.body(version: 1))
        }
    }

    @Test("A resource that changed answers 200 to If-Range: the file starts over with the new body")
    func changedStartsOver() async throws {
        try await withTestServer { server in
            let download = try request(server, key: "changed-later", query: "&change=1")
            let resumeData = try #require(await networkError { try await makeManager().perform(download) }?.resumeData)
            let file = try await makeManager().perform(download, resumingFrom: resumeData)
            #expect(try Data(contentsOf: file.url) == ResumableDownloadTests.body(version: 2))
            #expect(try await log(server, "changed-later").map(\.status) == [200, 200])
        }
    }

    @Test("A 416 to the resumed range fails saying so, and removes the partial file")
    func rangeNotSatisfiable() async throws {
        try await withTestServer { server in
            let download = try request(server, key: "refused-later", query: "&refuse=1")
            let resumeData = try #require(await networkError { try await makeManager().perform(download) }?.resumeData)
            let error = await networkError { try await makeManager().perform(download, resumingFrom: resumeData) }
            guard case .apiError = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(error?.statusCode == 416)
            #expect(error?.errorDescription?.contains("refused to continue the download at byte \(Self.cut)") == true,
                    "\(error?.errorDescription ?? "")")
            #expect(try contents(resumeData.destination.deletingLastPathComponent()).isEmpty)
        }
    }

    @Test("Resume data that does not fit is refused before anything is sent: another URL, destination, offset or file")
    func tamperedResumeData() async throws {
        try await withTestServer { server in
            let download = try request(server, key: "tampered")
            let data = try #require(await networkError { try await makeManager().perform(download) }?.resumeData)
            func variant(_ change: (inout [String: Any]) -> Void) throws -> ResumeData {
                var object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(data)) as? [String: Any])
                change(&object)
                return try JSONDecoder().decode(ResumeData.self, from: JSONSerialization.data(withJSONObject: object))
            }
            // A link named like a partial file, pointing elsewhere, is not one.
            let link = data.partialFile.deletingLastPathComponent().appendingPathComponent(".file.bin.link.download")
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: data.partialFile)
            let cases: [(ResumeData, String)] = [
                (try variant { $0["partialFile"] = link.absoluteString }, "is gone"),
                (try variant { $0["url"] = "http://127.0.0.1:\(server.port)/another" }, "the resume data is for"),
                (try variant { $0["offset"] = Self.cut + 1 }, "beyond the \(Self.cut) bytes of the partial file"),
                (try variant { $0["offset"] = -5 }, "offset (-5)"),
                (try variant { $0["partialFile"] = "file:///etc/passwd" }, "not a partial file of this download"),
                (try variant { $0["destination"] = "file:///tmp/elsewhere.bin" }, "for a download to"),
                (try variant { $0["validator"] = "\"v1\"\r\nX-Injected: 1" }, "validator"),
            ]
            for (tampered, reason) in cases {
                let error = await networkError { try await makeManager().perform(download, resumingFrom: tampered) }
                guard case .invalidRequest = error else { Issue.record("got \(String(describing: error)) for \(reason)"); continue }
                #expect(error?.errorDescription?.contains(reason) == true, "\(error?.errorDescription ?? "")")
            }
            #expect(try await log(server, "tampered").count == 1, "a refused resume sent a request")
            #expect(PendingDownload.size(of: data.partialFile) == Self.cut, "a refused resume changed the partial file")
            data.discard()
            #expect(PendingDownload.size(of: data.partialFile) == nil)
        }
    }

    @Test("No resume data without a validator, nor for a failure no resume mends; no part is left then")
    func notResumable() async throws {
        try await withTestServer { server in
            let directory = try temporaryDirectory()
            let download = try request(server, key: "novalidator-later", query: "&validator=none", in: directory)
            let error = await networkError { try await makeManager().perform(download) }
            #expect(error != nil && error?.resumeData == nil)
            #expect(try contents(directory).isEmpty)
        }
    }

    @Test("A download continued in another process, from resume data saved by the process that failed, is byte-identical")
    func acrossAProcessRestart() async throws {
        try await withTestServer { server in
            let directory = try temporaryDirectory()
            let destination = directory.appendingPathComponent("file.bin")
            let saved = directory.appendingPathComponent("resume.json")
            let arguments = ["resumable-download", String(server.port), "/resumable/restart?size=\(Self.size)&cut=0.6",
                             destination.path, saved.path]
            let first: ResumeProbeReport = try await RequestProbe.probe.run(arguments)
            #expect(first.outcome == "transport" && first.wroteResumeData == true, "\(first)")
            let second: ResumeProbeReport = try await RequestProbe.probe.run(arguments)
            #expect(second.outcome == "success" && second.resumed == true && second.size == Int64(Self.size), "\(second)")
            #expect(try Data(contentsOf: destination) == ResumableDownloadTests.body(version: 1))
            #expect(try await log(server, "restart").map(\.status) == [200, 206])
        }
    }
}
