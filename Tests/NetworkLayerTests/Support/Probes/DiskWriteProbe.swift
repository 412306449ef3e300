import Foundation
import Testing

/// The `DiskWriteProbe` executable (Tests/DiskWriteProbe), built beside this test binary: one
/// download in a process whose files may not grow beyond a limit (RLIMIT_FSIZE, SIGXFSZ ignored),
/// so writing the body fails part-way as on a full disk, without a mount or privileges and
/// without limiting the test process's own files.
enum DiskWriteProbe {
    /// How the probe's download ended.
    struct Report: Decodable, Sendable, CustomStringConvertible {
        /// `success`, `transport` (a `NetworkError.transport`) or `other` (any other error).
        let outcome: String
        /// The `.transport` error's reason, or the other error as text.
        let reason: String?
        /// The downloaded file's size, on success.
        let size: Int64?

        var description: String { "\(outcome): \(reason ?? size.map { "\($0) bytes" } ?? "")" }
    }

    /// Where the write of a download's body fails, and how: a body from the test server and a
    /// file size limit it exceeds.
    enum FailurePoint: CaseIterable, Sendable, CustomTestStringConvertible {
        /// 4 MB in 64 KB pieces against a 1 MB limit: the write of the bytes past 1 MB fails.
        case midTransfer
        /// 2,000 bytes against a 100-byte limit: they fit the file's stdio buffer, so every write
        /// "succeeds" and the flush after the last byte fails.
        case finalFlush

        var endpoint: String {
            switch self {
            case .midTransfer: "/slow-bytes/4194304?chunk=65536&interval=0"
            case .finalFlush: "/slow-bytes/2000?chunk=2000&interval=0"
            }
        }

        var fileSizeLimit: Int {
            switch self {
            case .midTransfer: 1 << 20
            case .finalFlush: 100
            }
        }

        var testDescription: String {
            switch self {
            case .midTransfer: "mid-transfer"
            case .finalFlush: "at the final flush"
            }
        }
    }

    /// The probe: its request's timeout is 20 s, so one still running after 60 s hangs beyond it.
    static let probe = ProbeProcess(name: "DiskWriteProbe", deadline: .seconds(60))

    /// Downloads `endpoint` from the test server on `port` to `destination` in a new process
    /// whose files may not grow beyond `limit` bytes. Throws if the probe crashes, exits with a
    /// failure, or does not finish within the probe's deadline.
    static func download(port: Int, _ endpoint: String, to destination: URL, fileSizeLimit limit: Int) async throws -> Report {
        try await probe.run([String(port), endpoint, destination.path, String(limit)])
    }
}
