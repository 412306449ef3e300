import Foundation
@testable import NetworkLayer

/// Resume data read back from disk (``ResumeData``, saved by an app, maybe tampered with): any
/// bytes as its JSON, or a value built from confusing parts (partial file paths with `..`, `.`,
/// other directories and names, offsets of any size and sign, validators with control
/// characters, other URLs and destinations).
///
/// Decoding never traps; ``ResumeData/problem(url:destination:)`` never traps, and accepts only
/// what a download may continue from: the URL and destination asked for, a partial file that is
/// a regular file named `.<destination name>.<…>.download` in the destination's own directory, an
/// offset in 1...its size, a non-empty validator without control characters.
enum ResumeDataFuzz {
    static let url = "http://127.0.0.1:8080/archive.tar?api_key=<redacted>"
    /// A directory with one real partial file of 100 bytes, made once.
    static let directory: URL = {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nl-fuzz-resume-\(getpid())")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: directory.appendingPathComponent(".file.bin.abcd1234.download").path,
                                       contents: Data(repeating: 7, count: 100))
        return directory
    }()
    static var destination: URL { directory.appendingPathComponent("file.bin") }

    static func check(_ data: Data) throws(FuzzFailure) {
        var bytes = FuzzBytes(data)
        let candidate: ResumeData?
        if bytes.byte() & 1 == 0 {
            candidate = try? JSONDecoder().decode(ResumeData.self, from: Data(bytes.rest()))
        } else {
            candidate = built(&bytes)
        }
        guard let resumeData = candidate else { return }
        let problem = resumeData.problem(url: url, destination: destination)
        let name = resumeData.partialFile.lastPathComponent
        let size = PendingDownload.size(of: resumeData.partialFile)
        let acceptable = resumeData.url == url
            && resumeData.destination.standardizedFileURL.path == destination.standardizedFileURL.path
            && resumeData.partialFile.deletingLastPathComponent().standardizedFileURL.path == directory.standardizedFileURL.path
            && name.hasPrefix(".file.bin.") && name.hasSuffix(".download")
            && size.map { resumeData.offset >= 1 && resumeData.offset <= $0 } == true
            && !resumeData.validator.isEmpty
            && !resumeData.validator.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
        if let problem {
            guard !acceptable else { throw FuzzFailure("acceptable resume data \(resumeData) refused: \(problem)") }
            guard !problem.contains("\n"), !problem.contains("\r") else { throw FuzzFailure("a refusal holds a line break: \(problem)") }
        } else {
            guard acceptable else { throw FuzzFailure("resume data accepted although it does not fit: \(resumeData)") }
        }
    }

    /// A value from parts: mostly near the real one, each part changed by the input's choice.
    private static func built(_ bytes: inout FuzzBytes) -> ResumeData? {
        let names = [".file.bin.abcd1234.download", ".file.bin.zzzz.download", "file.bin", ".other.bin.abcd1234.download",
                     ".file.bin.abcd1234.download/", "../\(directory.lastPathComponent)/.file.bin.abcd1234.download",
                     "./.file.bin.abcd1234.download", ".file.bin..download", ""]
        let directories = [directory.path, "/etc", "/tmp", directory.path + "/.", directory.path + "/sub/..", "/"]
        let validators = ["\"v1\"", "", "\"v1\"\r\nX-Injected: 1", "W/\"weak\"", "Wed, 21 Oct 2015 07:28:00 GMT", "\u{7F}"]
        let urls = [url, "http://127.0.0.1:8080/other", "", url + "#x"]
        let offsets: [Int64] = [100, 1, 0, -1, 101, Int64.max, Int64.min, 50]
        let path = directories[bytes.choice(directories.count)] + "/" + names[bytes.choice(names.count)]
        let destinationPath = bytes.choice(4) == 0 ? "/tmp/elsewhere.bin" : destination.path
        let value: [String: Any] = [
            "url": urls[bytes.choice(urls.count)],
            "validator": bytes.choice(8) < 6 ? validators[bytes.choice(validators.count)]
                : String(decoding: bytes.take(bytes.choice(16)), as: UTF8.self),
            "offset": bytes.choice(4) == 0 ? Int64(bitPattern: bytes.word()) : offsets[bytes.choice(offsets.count)],
            "partialFile": URL(fileURLWithPath: path).absoluteString,
            "destination": URL(fileURLWithPath: destinationPath).absoluteString,
        ]
        guard let data = try? JSONSerialization.data(withJSONObject: value) else { return nil }
        return try? JSONDecoder().decode(ResumeData.self, from: data)
    }
}
