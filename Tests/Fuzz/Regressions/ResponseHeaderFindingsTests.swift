import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// What the response-headers fuzz target found, stated as behaviour.
@Suite("Fuzz findings: response headers", .sharing)
struct ResponseHeaderFindingsTests {
    @Test("A Content-Length of two numbers (\"12 34\") is no length at all, not the first number")
    func contentLengthOfTwoNumbers() throws {
        let input = try FuzzInputs.regression("response-headers", "content-length-two-numbers")
        var block = ResponseHeaderBlock()
        var verdicts: [ResponseHeaderBlock.Verdict] = []
        for line in input.split(separator: 0x0A) {
            verdicts.append(Array(line + [0x0A]).withUnsafeBufferPointer { block.receive($0) })
        }
        #expect(!verdicts.contains { if case .announcedLength = $0 { true } else { false } }, "\(verdicts)")
        #expect(block.announcedLength == nil)
        for (line, expected) in [("Content-Length: 12", 12), ("content-length:\t7 \t", 7), ("CONTENT-LENGTH:0", 0)] {
            #expect(Array(line.utf8).withUnsafeBufferPointer(ResponseHeaderBlock.contentLength) == expected, "\(line)")
        }
        for line in ["Content-Length: 12 34", "Content-Length: 1 2", "Content-Length: 12 x", "Content-Length: +5", "Content-Length: "] {
            #expect(Array(line.utf8).withUnsafeBufferPointer(ResponseHeaderBlock.contentLength) == nil, "\(line)")
        }
        try FuzzTargets.named("response-headers")?.check(input)
    }

    @Test("value(for:) gives every line of a name in any case, before and after the dictionary is built")
    func caseVariantsReadTheSameAfterTheDictionary() throws {
        let input = try FuzzInputs.regression("response-headers", "one-name-in-three-cases")
        var block = ResponseHeaderBlock()
        for line in input.split(separator: 0x0A) {
            _ = Array(line + [0x0A]).withUnsafeBufferPointer { block.receive($0) }
        }
        let headers = ResponseHeaders(raw: block.bytes)
        #expect(headers.value(for: "vary") == "Accept, Origin, Cookie")
        #expect(headers.dictionary == ["Vary": "Accept", "vary": "Origin", "VARY": "Cookie"])
        #expect(headers.value(for: "vary") == "Accept, Origin, Cookie")
        #expect(headers.value(for: "Vary") == "Accept, Origin, Cookie")
        try FuzzTargets.named("response-headers")?.check(input)
    }
}
