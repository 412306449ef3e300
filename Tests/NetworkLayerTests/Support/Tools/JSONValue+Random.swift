import Foundation
@testable import NetworkLayer

extension JSONValue {
    /// A random JSON value up to `depth` levels deep: every kind, integers up to ±2^53, fractions
    /// and exponents, strings with escapes and non-ASCII text, empty and nested containers.
    static func random(depth: Int, using generator: inout SeededRandom) -> JSONValue {
        let kinds = depth > 0 ? 8 : 6
        switch Int.random(in: 0..<kinds, using: &generator) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &generator))
        case 2: return .number(Double(Int64.random(in: -(1 << 53)...(1 << 53), using: &generator)))
        case 3:
            let mantissa = Double.random(in: -1...1, using: &generator)
            return .number(mantissa * pow(10, Double(Int.random(in: -30...30, using: &generator))))
        case 4, 5: return .string(randomText(using: &generator))
        case 6:
            return .array((0..<Int.random(in: 0...4, using: &generator)).map { _ in JSONValue.random(depth: depth - 1, using: &generator) })
        default:
            var members: [String: JSONValue] = [:]
            for _ in 0..<Int.random(in: 0...4, using: &generator) {
                members[randomText(using: &generator)] = JSONValue.random(depth: depth - 1, using: &generator)
            }
            return .object(members)
        }
    }

    private static func randomText(using random: inout SeededRandom) -> String {
        let pieces = ["a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\u{1}", "é", "東京", "🎸", "key", "&=?#", "null"]
        return (0..<Int.random(in: 0...6, using: &random)).map { _ in pieces.randomElement(using: &random) ?? "" }.joined()
    }
}
