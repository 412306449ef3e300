import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// What the parameters fuzz target found, stated as behaviour.
@Suite("Fuzz findings: parameters", .sharing)
struct ParametersFindingsTests {
    /// JSONSerialization, which read an `Encodable` form body back before, drops U+FEFF at the
    /// start of a string and after an escape.
    @Test("A form body from an Encodable keeps every U+FEFF of its strings and keys")
    func formBodyKeepsByteOrderMarks() throws {
        let value = ["\u{FEFF}key": "\u{FEFF}start", "quote": "\"\u{FEFF}after an escape", "plain": "x"]
        let fields = try ParameterValue.fromJSON(JSONEncoder().encode(value))
        let query = fields.queryString()
        #expect(query == "plain=x&quote=%22%EF%BB%BFafter%20an%20escape&%EF%BB%BFkey=%EF%BB%BFstart")
        try FuzzTargets.named("parameters")?.check(FuzzInputs.regression("parameters", "bom-after-escape-in-form-body"))
    }

    @Test("Numbers of a form body read back at their value: integers exactly, others as the nearest Double")
    func formBodyNumbers() throws {
        struct Numbers: Encodable {
            let big = Int64.max, unsigned = UInt64.max, fraction = 0.1, huge = -2.8483943054992686e+18, tiny = Double.leastNonzeroMagnitude
        }
        let query = try ParameterValue.fromJSON(JSONEncoder().encode(Numbers())).queryString()
        let items = URLComponents(string: "http://h/?" + query)?.queryItems ?? []
        let values = Dictionary(items.map { ($0.name, $0.value ?? "") }) { first, _ in first }
        #expect(values["big"] == "9223372036854775807")
        #expect(values["unsigned"] == "18446744073709551615")
        #expect(values["fraction"] == "0.1")
        #expect(values["huge"].flatMap(Double.init) == -2.8483943054992686e+18)
        #expect(values["tiny"].flatMap(Double.init) == .leastNonzeroMagnitude)
        try FuzzTargets.named("parameters")?.check(FuzzInputs.regression("parameters", "long-number-read-as-decimal"))
    }

    /// `String`'s `<` sorted keys mixing a precomposed and a decomposed `é` one way when the
    /// parameters were converted and another when the form body was read back.
    @Test("Keys are sorted by their UTF-8 bytes, so a precomposed and a decomposed é sort one way everywhere")
    func keysSortByBytes() throws {
        let params: [String: any Sendable] = ["\u{E9}#": [-77], "e\u{301}": "", "aa": "", "": "", "&7\u{0}": -9]
        let expected = ["", "&7\u{0}", "aa", "e\u{301}", "\u{E9}#"]
        guard case .object(let members)? = try? ParameterValue.object(from: params) else {
            Issue.record("the parameters did not convert")
            return
        }
        #expect(members.map(\.key) == expected)
        guard case .object(let readBack) = try ParameterValue.fromJSON(ParameterValue.object(members).jsonData()) else {
            Issue.record("the JSON did not read back as an object")
            return
        }
        #expect(readBack.map(\.key) == expected)
        try FuzzTargets.named("parameters")?.check(FuzzInputs.regression("parameters", "precomposed-and-decomposed-keys"))
    }
}
