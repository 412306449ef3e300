import Foundation

/// Random text shaped like a number a broken or hostile server might put in a header: huge digit
/// runs, signs, exponents, fractions, hex, NaN and infinity spellings, whitespace, commas and
/// non-ASCII digits.
enum NumericText {
    static func random(using random: inout SeededRandom) -> String {
        func digits(_ count: Int, _ random: inout SeededRandom) -> String {
            String((0..<count).map { _ in Character(String(Int.random(in: 0...9, using: &random))) })
        }
        switch Int.random(in: 0...12, using: &random) {
        case 0: return digits(Int.random(in: 1...40, using: &random), &random)
        case 1: return digits(Int.random(in: 100...400, using: &random), &random)
        case 2: return "-" + digits(Int.random(in: 1...25, using: &random), &random)
        case 3: return "+" + digits(Int.random(in: 1...5, using: &random), &random)
        case 4: return digits(Int.random(in: 1...3, using: &random), &random) + "e" + digits(Int.random(in: 1...4, using: &random), &random)
        case 5: return digits(Int.random(in: 1...8, using: &random), &random) + "." + digits(Int.random(in: 1...8, using: &random), &random)
        case 6: return "0x" + String(UInt64.random(in: 0...UInt64.max, using: &random), radix: 16)
        case 7: return String(Int64.random(in: Int64.min...Int64.max, using: &random))
        case 8: return String(UInt64.random(in: 0...UInt64.max, using: &random))
        case 9: return ["NaN", "-nan", "inf", "-Infinity", "1E308", "-0", "", " "].randomElement(using: &random) ?? ""
        case 10: return digits(2, &random) + ", " + digits(2, &random)
        case 11: return " " + digits(3, &random) + "\t"
        default: return "\u{0663}\u{0660}"  // Arabic-Indic digits: numeric to Unicode, not to HTTP
        }
    }
}
