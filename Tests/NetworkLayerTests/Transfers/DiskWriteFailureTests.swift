import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// A download whose file cannot be written ends with a clear `.transport` error, never a crash,
/// a hang or a truncated "success"; as `DownloadedFile` promises, nothing is left at the
/// destination (an existing file survives) and the temporary file beside it is removed. Each
/// download runs in `DiskWriteProbe`, a process whose files may not grow beyond a limit
/// (RLIMIT_FSIZE), so the disk write really fails, part-way through, unprivileged.
@Suite("Disk write failures during downloads", .sharing)
struct DiskWriteFailureTests {
    @Test("With room for the whole body, the probe's download succeeds: the limit alone makes the others fail")
    func roomForTheWholeBodySucceeds() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("file.bin")
        let port = try await TestServer.shared().port
        let report = try await DiskWriteProbe.download(port: port, "/slow-bytes/4194304?chunk=65536&interval=0",
                                                       to: destination, fileSizeLimit: 8 << 20)
        #expect(report.outcome == "success" && report.size == 4 << 20, "\(report)")
        #expect(try filesIn(directory) == ["file.bin"])
    }

    @Test("A write that fails, mid-transfer or when the file is flushed at the end, ends with .transport saying the download could not be written, and leaves no file",
          arguments: DiskWriteProbe.FailurePoint.allCases)
    func failedWriteEndsCleanly(_ point: DiskWriteProbe.FailurePoint) async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("file.bin")
        let port = try await TestServer.shared().port
        let report = try await DiskWriteProbe.download(port: port, point.endpoint, to: destination, fileSizeLimit: point.fileSizeLimit)
        #expect(report.outcome == "transport", "\(report)")
        #expect(report.reason == "the download could not be written to disk: \(String(cString: strerror(EFBIG)))", "\(report)")
        #expect(try filesIn(directory).isEmpty, "neither the destination nor the temporary file is left")
    }

    @Test("An existing file at the destination survives a download whose write failed, byte for byte")
    func existingFileSurvives() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("file.bin")
        let previous = Data("the previous download".utf8)
        try previous.write(to: destination)
        let port = try await TestServer.shared().port
        let point = DiskWriteProbe.FailurePoint.midTransfer
        let report = try await DiskWriteProbe.download(port: port, point.endpoint, to: destination, fileSizeLimit: point.fileSizeLimit)
        #expect(report.outcome == "transport", "\(report)")
        #expect(try Data(contentsOf: destination) == previous)
        #expect(try filesIn(directory) == ["file.bin"], "the temporary file is removed")
    }
}
