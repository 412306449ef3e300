import Foundation

/// The values of every `name:` header line in raw HTTP requests (as a recording server saw them), in order.
func headerValues(_ name: String, in recorded: Data) -> [String] {
    String(decoding: recorded, as: UTF8.self).components(separatedBy: "\r\n").compactMap { line in
        guard let colon = line.firstIndex(of: ":"), line[..<colon].caseInsensitiveCompare(name) == .orderedSame else { return nil }
        return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
}
