import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// The header block looks for a bare CR, LF or NUL eight bytes at a time: wherever such a byte
/// sits in a line of any length, the line is refused, and the bytes just around them are not. It
/// unfolds a folded header (RFC 9112 section 5.2), and refuses a fold it cannot take.
@Suite("Response header lines, byte by byte", .sharing)
struct ResponseHeaderBlockTests {
    static func verdict(_ line: [UInt8]) -> ResponseHeaderBlock.Verdict {
        var block = ResponseHeaderBlock()
        return (line + [0x0D, 0x0A]).withUnsafeBufferPointer { block.receive($0) }
    }

    @Test("A CR, LF or NUL at any position of a line up to 40 bytes long is refused")
    func forbiddenByteAnywhere() {
        for length in 1...40 {
            for position in 0..<length {
                for forbidden: UInt8 in [0x00, 0x0A, 0x0D] {
                    var line = Array(repeating: UInt8(ascii: "x"), count: length)
                    line[0] = UInt8(ascii: "X")
                    line[position] = forbidden
                    #expect(Self.verdict(line) == .malformed("a header line holds a bare CR, LF or NUL"),
                            "byte \(forbidden) at \(position) of \(length)")
                }
            }
        }
    }

    @Test("Tabs and the other bytes below 0x0E or above it are kept, at any position")
    func otherControlBytesKept() {
        for length in 2...40 {
            for position in 1..<length {
                for allowed: UInt8 in [0x01, 0x09, 0x0B, 0x0C, 0x0E, 0x1F, 0x20, 0x7F, 0x80, 0xFF] {
                    var line = Array("X-A:".utf8) + Array(repeating: UInt8(ascii: "y"), count: length)
                    line[3 + position] = allowed
                    #expect(Self.verdict(line) == .accepted, "byte \(allowed) at \(position) of \(length)")
                }
            }
        }
    }

    @Test("Content-Length and Content-Encoding names are read in any case")
    func namesInAnyCase() {
        for name in ["Content-Length", "content-length", "CONTENT-LENGTH", "cOnTeNt-LeNgTh"] {
            #expect(Self.verdict(Array("\(name): 42".utf8)) == .announcedLength(42))
        }
        #expect(Self.verdict(Array("Content_Length: 42".utf8)) == .accepted)
        #expect(Self.verdict(Array("Content-Lengthy: 42".utf8)) == .accepted)
        for name in ["Content-Encoding", "CONTENT-ENCODING", "content-encoding"] {
            var block = ResponseHeaderBlock()
            _ = Array("\(name): gzip\r\n".utf8).withUnsafeBufferPointer { block.receive($0) }
            #expect(block.isContentEncoded)
        }
        var identity = ResponseHeaderBlock()
        _ = Array("Content-Encoding: identity\r\n".utf8).withUnsafeBufferPointer { identity.receive($0) }
        #expect(!identity.isContentEncoded)
    }

    /// The block after `lines`, each given to it as libcurl does (its CRLF kept), and the verdicts.
    static func received(_ lines: [String]) -> (block: ResponseHeaderBlock, verdicts: [ResponseHeaderBlock.Verdict]) {
        var block = ResponseHeaderBlock()
        let verdicts = lines.map { line in Array(line.utf8).withUnsafeBufferPointer { block.receive($0) } }
        return (block, verdicts)
    }

    @Test("A fold, with the white space around it, becomes one space in the value it continues; the next header is its own")
    func foldBecomesOneSpace() {
        let (block, verdicts) = Self.received(["HTTP/1.1 200 OK\r\n", "X-A: one \t\r\n", " \t two\r\n", "\tthree\r\n", "  \r\n",
                                               "X-B:\r\n", " b\r\n", "X-C: c\r\n", "\r\n"])
        #expect(verdicts.allSatisfy { $0 == .accepted }, "\(verdicts)")
        #expect(String(decoding: block.bytes, as: UTF8.self) == "X-A: one two three \nX-B: b\nX-C: c\n")
        let headers = ResponseHeaders(raw: block.bytes)
        #expect(headers.value(for: "x-a") == "one two three")
        #expect(headers.lines.map(\.name) == ["X-A", "X-B", "X-C"])
    }

    @Test("A continuation line with no header line before it in its block is refused: after the status line, after the blank line, after a line without a colon")
    func foldContinuingNothingIsRefused() {
        let refused = ResponseHeaderBlock.Verdict.malformed(ResponseHeaderBlock.foldContinuingNothing)
        #expect(Self.received(["HTTP/1.1 200 OK\r\n", " X-Injected: evil\r\n"]).verdicts.last == refused)
        #expect(Self.received(["HTTP/1.1 100 Continue\r\n", "X-I: i\r\n", "\r\n", "HTTP/1.1 200 OK\r\n", "\tX: y\r\n"]).verdicts.last == refused)
        #expect(Self.received(["HTTP/1.1 200 OK\r\n", "X-A: a\r\n", "\r\n", " X-Trailer: t\r\n"]).verdicts.last == refused)
        #expect(Self.received(["HTTP/1.1 200 OK\r\n", "no colon\r\n", " X-B: b\r\n"]).verdicts.last == refused)
        #expect(Self.received([" X-A: a\r\n"]).verdicts.last == refused)
    }

    @Test("A fold of a header libcurl acts on by its first line alone is refused, naming it as sent", arguments: [
        "Content-Length", "transfer-encoding", "CONTENT-ENCODING", "Location", "Set-Cookie", "WWW-Authenticate", "Proxy-Authenticate",
    ])
    func foldOfAHeaderLibcurlReadsIsRefused(name: String) {
        let verdicts = Self.received(["HTTP/1.1 200 OK\r\n", "\(name): 1\r\n", " 2\r\n"]).verdicts
        #expect(verdicts.last == .malformed("its \(name) header is folded over several lines (an obsolete line folding), "
                                            + "and libcurl acts on its first line alone"), "\(verdicts)")
    }

    @Test("A stored response's lines whose name starts with white space are left out when the block is rebuilt")
    func storedContinuationLinesAreLeftOut() {
        let block = ResponseHeaders.block([(" X-Injected", "evil"), ("\tSet-Cookie", "sid=evil"), ("X-A", "1"), ("X-B", " b")])
        #expect(String(decoding: block, as: UTF8.self) == "X-A: 1\nX-B:  b\n")
        #expect(ResponseHeaders(raw: block).lines.map(\.name) == ["X-A", "X-B"])
    }

    /// What a tracking block says libcurl stored last after `lines`, its name when it has one.
    static func lastStored(_ lines: [String]) -> (ResponseHeaderBlock.StoredHeader, String?) {
        var block = ResponseHeaderBlock(tracksLastStored: true)
        for line in lines { _ = Array(line.utf8).withUnsafeBufferPointer { block.receive($0) } }
        return (block.lastStored, block.withLastStoredName { String(decoding: $0, as: UTF8.self) })
    }

    @Test("The block names the line libcurl stored last: a header, a trailer, the header a fold continued, HTTP/2's status; or says it cannot")
    func lastStoredLine() {
        #expect(Self.lastStored([]).0 == .nothing)
        #expect(Self.lastStored(["HTTP/1.1 204 No Content\r\n", "\r\n"]).0 == .nothing)
        #expect(Self.lastStored(["HTTP/1.1 100 Continue\r\n", "\r\n", "HTTP/1.1 200 OK\r\n", "\r\n"]).0 == .nothing)
        #expect(Self.lastStored(["HTTP/1.1 200 OK\r\n", "X-A: a\r\n", "Content-Length : 2\r\n", "\r\n"]).1 == "Content-Length ")
        #expect(Self.lastStored(["HTTP/1.1 200 OK\r\n", "X-A: a\r\n", "\r\n", "X-Trailer: t\r\n", "\r\n"]).1 == "X-Trailer")
        #expect(Self.lastStored(["HTTP/1.1 200 OK\r\n", "X-A: a\r\n", "X-B: b\r\n", " more\r\n", "\r\n"]).1 == "X-B")
        #expect(Self.lastStored(["HTTP/1.1 200 OK\r\n", "X-A:\r\n"]).1 == "X-A")
        #expect(Self.lastStored(["HTTP/2 200 \r\n", "\r\n"]).0 == .status)
        #expect(Self.lastStored(["HTTP/2 200 \r\n", "x-a: a\r\n", "\r\n"]).1 == "x-a")
        // A 1xx's header, then a final response with none: its name went with the 1xx's lines.
        #expect(Self.lastStored(["HTTP/1.1 100 Continue\r\n", "X-I: i\r\n", "\r\n", "HTTP/1.1 200 OK\r\n", "\r\n"]).0 == .unknown)
        // A continuation with nothing of its own before it: libcurl appended it to what it held before.
        #expect(Self.lastStored(["HTTP/1.1 200 OK\r\n", " X-Lead: evil\r\n"]).0 == .unknown)
        #expect(Self.lastStored(["HTTP/1.1 200 OK\r\n", "X-A: a\rb\r\n"]).0 == .unknown)
        // An untracking block keeps nothing.
        #expect(Self.received(["HTTP/1.1 200 OK\r\n", "X-A: a\r\n"]).block.lastStored == .nothing)
    }

    @Test("The block knows when it is right after a status line and when its head has ended")
    func positionInTheResponse() {
        var (block, _) = Self.received([])
        #expect(block.isInHead && !block.isRightAfterStatusLine)
        (block, _) = Self.received(["HTTP/1.1 200 OK\r\n"])
        #expect(block.isInHead && block.isRightAfterStatusLine)
        (block, _) = Self.received(["HTTP/1.1 200 OK\r\n", "X-A: a\r\n"])
        #expect(block.isInHead && !block.isRightAfterStatusLine)
        (block, _) = Self.received(["HTTP/1.1 200 OK\r\n", "X-A: a\r\n", "\r\n"])
        #expect(!block.isInHead && !block.isRightAfterStatusLine)
        (block, _) = Self.received(["HTTP/1.1 200 OK\r\n", "\r\n", "X-Trailer: t\r\n"])
        #expect(!block.isInHead)
    }
}
