import Foundation
import Testing
import TestScheduling

/// Issue 11, item 5: decoding a body never takes more memory than Foundation's `JSONDecoder` on the
/// same body and type, valid or not, fitting the type or not; and a type that does not fit at the
/// top level costs no parse of the body. Each decode runs in a process of its own
/// (`DecodingMemory`), so the two figures are independent. The DocC article Reliability has the
/// figures for 50 MB bodies (`Tests/JSONMemoryProbe`); these use 16 MB to keep the suite short.
@Suite("Decoding memory", .serialized, .sharing)
struct DecodingMemoryTests {
    static let size = 16_000_000

    enum Body: String, CaseIterable, CustomStringConvertible {
        case numbers, numbersInvalid, objects, objectsInvalid

        var data: Data {
            switch self {
            case .numbers: DecodingMemory.numbers(bytes: DecodingMemoryTests.size)
            case .numbersInvalid: DecodingMemory.invalid(DecodingMemory.numbers(bytes: DecodingMemoryTests.size))
            case .objects: DecodingMemory.objects(bytes: DecodingMemoryTests.size)
            case .objectsInvalid: DecodingMemory.invalid(DecodingMemory.objects(bytes: DecodingMemoryTests.size))
            }
        }

        var description: String { rawValue }
    }

    @Test("FastJSON's peak memory is at most Foundation's on the same body and type",
          arguments: [
              (Body.numbers, "[Int]"), (.numbersInvalid, "[Int]"), (.numbers, "[Record]"),
              (.objects, "[Record]"), (.objectsInvalid, "[Record]"), (.objects, "[Int]"),
          ])
    func notAboveFoundation(body: Body, type: String) throws {
        try DecodingMemory.withFile(body.data) { file in
            let fast = try DecodingMemory.measure("fast", type, file)
            let foundation = try DecodingMemory.measure("foundation", type, file)
            #expect(fast.outcome == foundation.outcome)
            #expect(fast.growth <= foundation.growth, "\(type) from \(body): FastJSON \(fast), Foundation \(foundation)")
        }
    }

    @Test("An object type asked of a huge array (and an array of an object) costs a copy of the body, no parse",
          arguments: [(Body.numbers, "Summary"), (.numbersInvalid, "Summary"), (.objects, "Summary")])
    func topLevelMismatch(body: Body, type: String) throws {
        let data = body.data
        try DecodingMemory.withFile(data) { file in
            let fast = try DecodingMemory.measure("fast", type, file)
            let foundation = try DecodingMemory.measure("foundation", type, file)
            #expect(fast.outcome == foundation.outcome)
            #expect(fast.outcome == (body == .numbersInvalid ? "dataCorrupted" : "typeMismatch"))
            // The copy of the body and a few megabytes of runtime: no tape (12 bytes a value).
            #expect(fast.growth <= data.count + 8_000_000, "\(type) from \(body): FastJSON \(fast), Foundation \(foundation)")
            #expect(fast.growth <= foundation.growth, "\(type) from \(body): FastJSON \(fast), Foundation \(foundation)")
        }
    }

    @Test("An array asked of a huge object costs a copy of the body, no parse")
    func arrayOfObject() throws {
        // One object with many keys: `[Int]` does not fit it.
        var data = Data("{".utf8)
        var index = 0
        while data.count < Self.size {
            data.append(contentsOf: Array("\(index == 0 ? "" : ",")\"k\(index)\":\(index)".utf8))
            index += 1
        }
        data.append(UInt8(ascii: "}"))
        try DecodingMemory.withFile(data) { file in
            let fast = try DecodingMemory.measure("fast", "[Int]", file)
            #expect(fast.outcome == "typeMismatch")
            #expect(fast.growth <= data.count + 8_000_000, "FastJSON \(fast)")
        }
    }
}
