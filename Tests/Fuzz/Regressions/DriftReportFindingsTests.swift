import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// What the drift-report fuzz target found, stated as behaviour.
@Suite("Fuzz findings: drift report", .sharing)
struct DriftReportFindingsTests {
    @Test("A body with bytes after its JSON value, a NUL among them, has no shape (Foundation stops reading at the NUL)")
    func nulAfterANumber() throws {
        guard case .failure(let failure) = JSONShape.read(Data("1\0\0}".utf8)) else {
            Issue.record("a body with bytes after its value was read as a shape")
            return
        }
        #expect(failure.reason == "it is not JSON: more after the JSON value at byte 1")
        try FuzzTargets.named("drift-report")?.check(FuzzInputs.regression("drift-report", "nul-after-a-number"))
    }

    @Test("A trailing comma before ']' or '}' is read as Foundation's JSONDecoder reads it; two commas, or a comma alone, are not JSON")
    func trailingComma() throws {
        for (body, kinds) in [("[[[1]],]", JSONShape.Kinds.array), ("{\"a\": 1 , }", .object), ("[1,\n]", .array)] {
            guard case .success(let shape) = JSONShape.read(Data(body.utf8)) else { Issue.record("\(body) was refused"); continue }
            #expect(shape.kinds == kinds, "\(body)")
        }
        for body in ["[1,,]", "[,]", "{,}", "[1,"] {
            guard case .failure = JSONShape.read(Data(body.utf8)) else { Issue.record("\(body) was read as a shape"); continue }
        }
        try FuzzTargets.named("drift-report")?.check(FuzzInputs.regression("drift-report", "trailing-comma-in-an-array"))
    }

    @Test("A shape 64 levels deep is read; 65 levels is refused, naming where")
    func depthLimit() throws {
        let deep = { (levels: Int) in Data((String(repeating: "[", count: levels) + String(repeating: "]", count: levels)).utf8) }
        guard case .success = JSONShape.read(deep(64)) else { Issue.record("64 levels refused"); return }
        guard case .failure(let failure) = JSONShape.read(deep(65)) else { Issue.record("65 levels read"); return }
        #expect(failure.reason == "it nests deeper than 64 levels, at " + String(repeating: "[]", count: 64))
    }
}
