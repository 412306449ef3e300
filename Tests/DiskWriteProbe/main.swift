import Foundation
import NetworkLayer

// One download in a process of its own whose files may not grow beyond a limit, for the "Disk
// write failures" suite: `DiskWriteProbe <port> <endpoint> <destination> <limit>` sets the
// process's RLIMIT_FSIZE to `limit` bytes with SIGXFSZ ignored (so a write past it fails with
// EFBIG, as a full disk fails with ENOSPC, instead of killing the process), downloads `endpoint`
// from the test server on 127.0.0.1:`port` to `destination`, and prints one line of JSON:
// `{"outcome": "success", "size": bytes}`, `{"outcome": "transport", "reason": the error's reason}`
// or `{"outcome": "other", "reason": the error}`. The limit is process-wide, hence a process of
// its own: the test process's own files (servers' records, other tests' downloads) stay unlimited.

struct LoopbackProvider: ServiceProvider {
    let port: Int?
    var host: String { "127.0.0.1" }
    var httpScheme: HTTPScheme { .http }
}

final class FileDownload: BaseRequest<DownloadedFile> {
    init(port: Int, endpoint: String, to destination: URL) {
        super.init(serviceProvider: LoopbackProvider(port: port), endpoint: endpoint)
        downloadDestination = destination
        requestTimeout = .seconds(20)  // a hang ends as .timeOut, which the suite refuses
    }
}

struct Report: Encodable {
    let outcome: String
    var reason: String?
    var size: Int64?
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("DiskWriteProbe: \(message)\n".utf8))
    exit(2)
}

let arguments = CommandLine.arguments
guard arguments.count == 5, let port = Int(arguments[1]), let limit = rlim_t(arguments[4]) else {
    fail("usage: DiskWriteProbe <port> <endpoint> <destination> <limit>")
}
var ignore = sigaction()
ignore.__sigaction_handler.sa_handler = SIG_IGN
guard sigaction(SIGXFSZ, &ignore, nil) == 0 else { fail("cannot ignore SIGXFSZ: \(errno)") }
var fileSize = rlimit()
guard getrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &fileSize) == 0 else { fail("getrlimit: \(errno)") }
fileSize.rlim_cur = min(limit, fileSize.rlim_max)
guard setrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &fileSize) == 0 else { fail("setrlimit: \(errno)") }
Net.isVerbose = false

let report: Report
do {
    let file = try await Net.perform(FileDownload(port: port, endpoint: arguments[2], to: URL(fileURLWithPath: arguments[3])))
    report = Report(outcome: "success", size: file.size)
} catch .transport(let context) {
    report = Report(outcome: "transport", reason: context.reason)
} catch {
    report = Report(outcome: "other", reason: String(describing: error))
}
guard let line = try? JSONEncoder().encode(report) else { fail("cannot encode \(report)") }
print(String(decoding: line, as: UTF8.self))
