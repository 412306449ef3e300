import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// The header block looks for a bare CR, LF or NUL eight bytes at a time: wherever such a byte
/// sits in a line of any length, the line is refused, and the bytes just around them are not.
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
}
