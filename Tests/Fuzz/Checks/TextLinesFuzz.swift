import Foundation
@testable import NetworkLayer

/// The line splitting of `ByteStream.lines` and `JSONLines` (`LineSplitter` with LF endings), what
/// a streamed text or NDJSON body goes through: a line limit of 4 to 64 bytes or the real 16 MB,
/// then any bytes as the body (CRs and LFs in any places), cut into chunks at points the input
/// chooses.
///
/// Checked against the rules written out plainly here, over the whole body: a line ends at LF, one
/// CR right before it is dropped; what follows the last LF is a line too when it is not empty
/// (its own last CR dropped); so the lines are the same whatever the chunks. A line is refused
/// only for being longer than the limit, and then with `.lineTooLong`; a line within one chunk
/// may be longer (the limit bounds what is held across chunks).
enum TextLinesFuzz {
    static func check(_ data: Data) throws(FuzzFailure) {
        var bytes = FuzzBytes(data)
        let limit = bytes.bool() ? 16 << 20 : 4 + bytes.choice(61)
        let cuts = (0..<bytes.choice(16)).map { _ in Int(bytes.byte()) }
        let body = bytes.rest()
        let expected = model(body)

        var splitter = LineSplitter(endings: .lineFeed, maximumLineLength: limit)
        var lines: [[UInt8]] = []
        var start = 0
        do throws(StreamParseFailure) {
            for cut in (cuts.map { body.isEmpty ? 0 : $0 % (body.count + 1) } + [body.count]).sorted() where cut >= start {
                try body[start..<cut].withUnsafeBytes(typed: { (chunk) throws(StreamParseFailure) in
                    try splitter.feed(chunk) { line in lines.append(Array(line)) }
                })
                start = cut
            }
            try splitter.finish { line in lines.append(Array(line)) }
        } catch {
            guard case .lineTooLong(let refused) = error, refused == limit else {
                throw FuzzFailure("the splitter failed with \(error)")
            }
            // Only a line (with the CR the model dropped) longer than the limit is refused.
            let longest = longestRawLine(body)
            try require(longest > limit, "a \(limit)-byte limit refused \(show(body)), whose longest line is \(longest) bytes")
            return
        }
        try require(lines == expected, "chunks at \(cuts) of \(show(body)) gave \(lines.map(show)), not \(expected.map(show))")
    }

    /// The lines of a whole body, by the rules above.
    private static func model(_ body: [UInt8]) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        var line: [UInt8] = []
        for byte in body {
            if byte == 0x0A {
                if line.last == 0x0D { line.removeLast() }
                lines.append(line)
                line = []
            } else {
                line.append(byte)
            }
        }
        if !line.isEmpty {
            if line.last == 0x0D { line.removeLast() }
            lines.append(line)
        }
        return lines
    }

    /// The longest run of bytes between LFs, CRs included.
    private static func longestRawLine(_ body: [UInt8]) -> Int {
        var longest = 0
        var current = 0
        for byte in body {
            if byte == 0x0A {
                longest = max(longest, current)
                current = 0
            } else {
                current += 1
            }
        }
        return max(longest, current)
    }

    private static func show(_ bytes: [UInt8]) -> String {
        String(decoding: bytes, as: UTF8.self).debugDescription
    }
}
