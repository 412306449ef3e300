import Foundation
@testable import NetworkLayer

/// MockDrift's shape comparison and report: any bytes, cut in two by the first byte, as the mock's
/// body and the live one.
///
/// Checked: reading a shape never traps; a body Foundation's `JSONSerialization` reads, no deeper
/// than the reader's limit, has a shape whose top-level kind is the value's; a body compared with
/// itself shows no difference and no addition; the report's text has no control character but its
/// line breaks, never holds the request's secret, and its JSON reads back as the report.
enum DriftReportFuzz {
    private static let secret = "zq9x-secret"

    static func check(_ data: Data) throws(FuzzFailure) {
        guard let first = data.first else { return }
        let rest = data.dropFirst()
        let cut = rest.startIndex + Int(first) * rest.count / 256
        let mock = Data(rest[..<cut]), live = Data(rest[cut...])
        var differences: [String] = [], additions: [String] = []
        for body in [mock, live] {
            let shape = JSONShape.read(body)
            try agreesWithFoundation(body, shape)
            if case .success(let shape) = shape {
                let same = JSONShape.compare(mock: shape, live: shape)
                try require(same.differences.isEmpty && same.additions.isEmpty, "a shape compared with itself differs: \(same)")
            }
        }
        switch (JSONShape.read(mock), JSONShape.read(live)) {
        case (.success(let mocked), .success(let seen)):
            (differences, additions) = JSONShape.compare(mock: mocked, live: seen)
        case (.failure(let failure), _), (_, .failure(let failure)):
            differences = [failure.reason]
        }
        let entry = MockDriftReport.Entry(request: "GET /x?token=\(secret)", mock: "the mock file \(secret)", differences: differences + [secret],
                                          additions: additions, notes: [String(decoding: live.prefix(64), as: UTF8.self)], skipped: nil)
        let report = MockDriftReport(entries: [entry.cleaned(secrets: [secret])])
        let text = report.description
        try require(!text.contains(secret), "the report shows the secret: \(text.debugDescription)")
        let controls = text.unicodeScalars.filter { $0 != "\n" && ($0.properties.generalCategory == .control || (0x202A...0x202E).contains($0.value)
                                                                    || (0x2066...0x2069).contains($0.value)) }
        try require(controls.isEmpty, "the report's text holds control characters \(controls.map(\.value)): \(text.debugDescription)")
        let json = report.json
        try require(!String(decoding: json, as: UTF8.self).contains(secret), "the report's JSON shows the secret")
        let decoded = try? JSONDecoder().decode(MockDriftReport.self, from: json)
        try require(decoded == report, "the report's JSON does not read back: \(String(decoding: json, as: UTF8.self).debugDescription)")
    }

    /// A body Foundation reads within the depth limit has a shape of the same top-level kind.
    private static func agreesWithFoundation(_ body: Data, _ shape: Result<JSONShape, JSONShape.Failure>) throws(FuzzFailure) {
        // Foundation stops reading at a NUL byte, ignoring what follows; the shape reader does not.
        guard !body.contains(0), let value = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]),
              depth(of: value) <= JSONShape.maximumDepth else {
            return
        }
        switch shape {
        case .failure(let failure):
            try require(failure.reason.contains("distinct paths"), "Foundation reads \(body.debugDescription), the shape reader refused it: \(failure.reason)")
        case .success(let shape):
            let expected: JSONShape.Kinds = switch value {
            case is [Any]: .array
            case is [String: Any]: .object
            case is String: .string
            case is NSNull: .null
            default: [.bool, .number]
            }
            try require(!shape.kinds.isEmpty && shape.kinds.isSubset(of: expected),
                        "Foundation reads \(expected.text), the shape reader \(shape.kinds.text), in \(body.debugDescription)")
        }
    }

    private static func depth(of value: Any) -> Int {
        switch value {
        case let array as [Any]: 1 + (array.map(depth).max() ?? 0)
        case let object as [String: Any]: 1 + (object.values.map(depth).max() ?? 0)
        default: 0
        }
    }
}
