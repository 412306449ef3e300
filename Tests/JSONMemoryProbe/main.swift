import FastJSON
import Foundation

// One measurement of decoding memory, in a process of its own (so one decode's peak cannot hide
// another's): `JSONMemoryProbe <fast|foundation> <type> <file>` reads the file, resets the
// kernel's peak resident size (`/proc/self/clear_refs`, where allowed), decodes the bytes as the type with
// FastJSON or Foundation's `JSONDecoder()`, and prints one line of JSON:
// `{"baseline": bytes resident before decoding, "peak": the peak during it, "outcome": "value"
// or the error's case, "reset": whether the peak was reset}`. Used by FastJSONTests' "Decoding
// memory" suite and for the Reliability article's figures.

/// An element of the array-of-objects body.
struct Record: Decodable {
    let id: Int
    let name: String
    let score: Double
    let active: Bool
}

/// A small object type: decoded from an array, a mismatch at the top level.
struct Summary: Decodable {
    let total: Int
    let name: String
}

func status(_ field: String) -> Int? {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }),
          let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return nil }
    return kilobytes * 1024
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("JSONMemoryProbe: \(message)\n".utf8))
    exit(2)
}

func decode<T: Decodable>(_: T.Type, _ data: Data, fast: Bool) -> String {
    do {
        let value = fast ? try FastJSONDecoder.decode(T.self, from: data) : try JSONDecoder().decode(T.self, from: data)
        return withExtendedLifetime(value) { "value" }
    } catch let error as DecodingError {
        switch error {
        case .typeMismatch: return "typeMismatch"
        case .valueNotFound: return "valueNotFound"
        case .keyNotFound: return "keyNotFound"
        case .dataCorrupted: return "dataCorrupted"
        @unknown default: return "DecodingError"
        }
    } catch {
        return "\(type(of: error))"
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 4, ["fast", "foundation"].contains(arguments[1]) else {
    fail("usage: JSONMemoryProbe <fast|foundation> <[Int]|[Record]|Summary> <file>")
}
let fast = arguments[1] == "fast"
guard let data = FileManager.default.contents(atPath: arguments[3]) else { fail("cannot read \(arguments[3])") }
// Writing 5 to clear_refs resets VmHWM to the current resident size (Linux 4.0 and later). Where
// /proc does not allow it, the peak so far (reading the file) stays in, which can only make the
// growth look smaller for both decoders alike: the output says so ("reset": false).
let reset = (try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)) != nil
guard let baseline = status("VmRSS") else { fail("no VmRSS in /proc/self/status") }
let outcome: String
switch arguments[2] {
case "[Int]": outcome = decode([Int].self, data, fast: fast)
case "[Record]": outcome = decode([Record].self, data, fast: fast)
case "Summary": outcome = decode(Summary.self, data, fast: fast)
default: fail("unknown type \(arguments[2])")
}
guard let peak = status("VmHWM") else { fail("no VmHWM in /proc/self/status") }
withExtendedLifetime(data) {
    print("{\"baseline\": \(baseline), \"peak\": \(peak), \"outcome\": \"\(outcome)\", \"reset\": \(reset)}")
}
