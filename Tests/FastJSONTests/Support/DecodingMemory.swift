import Foundation
import Testing

/// Decoding-memory measurements, each in a process of its own: the `JSONMemoryProbe` executable
/// (Tests/JSONMemoryProbe) built beside this test binary reads a body from a file, resets the
/// kernel's peak resident size and decodes the body with one decoder, so one measurement's peak
/// cannot hide in another's.
enum DecodingMemory {
    /// One decode: how far the resident size rose above what it was before, and how it ended
    /// (`value` or the `DecodingError` case).
    struct Measurement: CustomStringConvertible {
        let growth: Int
        let outcome: String

        var description: String { "\(growth / 1_000_000) MB (\(outcome))" }
    }

    /// The probe, next to the test binary in the build directory.
    static var probe: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("JSONMemoryProbe")
    }

    /// Decodes the body in `file` as `type` (`[Int]`, `[Record]` or `Summary`, the probe's types)
    /// with `decoder` (`fast` or `foundation`) in a new process.
    static func measure(_ decoder: String, _ type: String, _ file: URL) throws -> Measurement {
        let process = Process()
        process.executableURL = probe
        process.arguments = [decoder, type, file.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0,
              let fields = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let baseline = fields["baseline"] as? Int, let peak = fields["peak"] as? Int,
              let outcome = fields["outcome"] as? String else {
            throw ProbeFailure(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
        }
        return Measurement(growth: peak - baseline, outcome: outcome)
    }

    struct ProbeFailure: Error, CustomStringConvertible {
        let status: Int32
        let output: String
        var description: String { "JSONMemoryProbe exited with \(status): \(output)" }
    }

    /// An array of zeros of about `bytes` bytes (`[0,0,…]`), the body of issue 11's example.
    static func numbers(bytes: Int) -> Data {
        var data = Data(capacity: bytes + 2)
        data.append(UInt8(ascii: "["))
        let zero = Data("0,".utf8)
        for _ in 0..<(bytes / 2 - 1) { data.append(zero) }
        data.append(contentsOf: Array("0]".utf8))
        return data
    }

    /// An array of about `bytes` bytes of objects of the probe's `Record` shape.
    static func objects(bytes: Int) -> Data {
        var data = Data(capacity: bytes + 100)
        data.append(UInt8(ascii: "["))
        var index = 0
        while data.count < bytes {
            if index > 0 { data.append(UInt8(ascii: ",")) }
            let score = Double(index % 10_000) / 100
            data.append(contentsOf: Array(#"{"id":\#(index),"name":"name \#(index)","score":\#(score),"active":\#(index % 2 == 0)}"#.utf8))
            index += 1
        }
        data.append(UInt8(ascii: "]"))
        return data
    }

    /// `body` made invalid at its very end (`,x` before the closing bracket), so only a full scan sees it.
    static func invalid(_ body: Data) -> Data {
        body.dropLast() + Data(",x]".utf8)
    }

    /// Writes `data` to a new temporary file, removed when `body` returns.
    static func withFile<R>(_ data: Data, _ body: (URL) throws -> R) throws -> R {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("decoding-memory-\(UUID().uuidString).json")
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try body(file)
    }
}
