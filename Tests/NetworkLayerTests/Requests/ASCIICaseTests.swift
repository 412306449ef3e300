import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// Header names are compared the way HTTP compares them: ASCII letters ignoring case, every other
/// byte exactly. One comparison serves request headers, response headers and redirects.
@Suite("Header names compared ignoring ASCII case", .sharing)
struct ASCIICaseTests {
    /// The reference: ASCII upper-case letters folded to lower case, nothing else touched.
    static func folded(_ bytes: [UInt8]) -> [UInt8] {
        bytes.map { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 | 0x20 : $0 }
    }

    @Test("Random byte strings compare equal exactly when their ASCII-folded forms are equal")
    func agreesWithFolding() {
        var random = SeededRandom(seed: 12)
        // Letters, their neighbours that differ by 0x20 too ("@" and "`", "[" and "{"), and non-ASCII bytes.
        let alphabet: [UInt8] = Array("aAzZmM@`[{]}^~_-09".utf8) + [0xC3, 0xA9, 0xE3, 0x80, 0xFF, 0x00]
        for _ in 0..<5_000 {
            let left = (0..<Int.random(in: 0...6, using: &random)).map { _ in alphabet.randomElement(using: &random) ?? 0 }
            // Half the time a case-flipped copy of the left, so equal pairs are common.
            let right: [UInt8] = Bool.random(using: &random)
                ? left.map { byte in
                    let isLetter = (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
                    return isLetter && Bool.random(using: &random) ? byte ^ 0x20 : byte
                }
                : (0..<Int.random(in: 0...6, using: &random)).map { _ in alphabet.randomElement(using: &random) ?? 0 }
            let expected = Self.folded(left) == Self.folded(right)
            #expect(left.elementsEqualIgnoringASCIICase(right) == expected, "\(left) vs \(right)")
            #expect(right.elementsEqualIgnoringASCIICase(left) == expected, "\(right) vs \(left)")
        }
    }

    @Test("Strings compare through their UTF-8 bytes: Content-Type matches CONTENT-TYPE, not a non-ASCII look-alike")
    func strings() {
        #expect("Content-Type".equalsIgnoringASCIICase("CONTENT-TYPE"))
        #expect("x-api-key"[...].equalsIgnoringASCIICase("X-Api-Key"))
        #expect(!"Content-Type".equalsIgnoringASCIICase("Content-Typ"))
        #expect(!"K".equalsIgnoringASCIICase("\u{212A}"))  // KELVIN SIGN folds to "k" in Unicode, not in HTTP
        #expect(!"@".equalsIgnoringASCIICase("`"))
        #expect("".equalsIgnoringASCIICase(""))
    }

    @Test("A response header is found ignoring the case of its name, before and after the header block is parsed")
    func responseHeaders() {
        let raw = Array("X-Trace-Id: abc\nSet-Cookie: a=1\nset-cookie: b=2\n".utf8)
        let unparsed = ResponseHeaders(raw: raw)
        #expect(unparsed.value(for: "x-trace-id") == "abc")
        #expect(unparsed.value(for: "SET-COOKIE") == "a=1, b=2")
        #expect(unparsed.value(for: "X-Trace-Ids") == nil)
        let parsed = ResponseHeaders(raw: raw)
        _ = parsed.dictionary
        #expect(parsed.value(for: "X-TRACE-ID") == "abc")
        #expect(parsed.value(for: "X-Trace") == nil)
    }
}
