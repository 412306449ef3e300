import Foundation
import Testing
import TestScheduling
@testable import FastJSON

/// What the json-decoder fuzz target found, stated as behaviour.
@Suite("Fuzz findings: the JSON decoder", .sharing)
struct JSONDecoderFindingsTests {
    /// Foundation refuses these as Double and Float (its zero check reads the last `count % 4`
    /// bytes backwards and meets the exponent's digit first) and accepts the others.
    @Test("A zero with an exponent decodes as Double and Float exactly as Foundation decodes it, refusals included",
          arguments: ["0e2", "0E9", "0.00e5", "-0.0e7", "0e22", "-0e2", "0e0", "0e+2", "0.0e2", "0e-2"])
    func zeroWithExponent(number: String) throws {
        let data = Data("[\(number)]".utf8)
        for check in [{ JSONOutcome { try JSONDecoder().decode([Double].self, from: data) } == JSONOutcome { try FastJSONDecoder.decode([Double].self, from: data) } },
                      { JSONOutcome { try JSONDecoder().decode([Float].self, from: data) } == JSONOutcome { try FastJSONDecoder.decode([Float].self, from: data) } },
                      { JSONOutcome { try JSONDecoder().decode(FuzzRecord.self, from: Data("{\"id\": 1, \"score\": \(number)}".utf8)) }
                            == JSONOutcome { try FastJSONDecoder.decode(FuzzRecord.self, from: Data("{\"id\": 1, \"score\": \(number)}".utf8)) } }] {
            #expect(check(), "\(number)")
        }
        try FuzzTargets.named("json-decoder")?.check(FuzzInputs.regression("json-decoder", "zero-with-one-digit-exponent-as-double"))
    }
}
