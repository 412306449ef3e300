import Foundation
@testable import NetworkLayer

/// SplitMix64: the same sequence for the same seed, so a failing property case is reproducible.
struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

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
