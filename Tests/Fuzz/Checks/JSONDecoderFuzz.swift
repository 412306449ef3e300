@testable import FastJSON
import Foundation

/// The JSON decoder against Foundation's: for any bytes and each of a few representative types,
/// `FastJSONDecoder` gives the value `JSONDecoder()` gives, or the same error (case, type, coding
/// path, description).
enum JSONDecoderFuzz {
    static func check(_ data: Data) throws(FuzzFailure) {
        try same(FuzzJSON.self, data)
        try same([FuzzRecord].self, data)
        try same(FuzzRecord.self, data)
        try same([Int].self, data)
        try same([Double].self, data)
        try same([String].self, data)
        try same([Int8?].self, data)
    }

    private static func same<T: Decodable & Equatable>(_ type: T.Type, _ data: Data) throws(FuzzFailure) {
        let foundation = JSONOutcome { try JSONDecoder().decode(T.self, from: data) }
        let fast = JSONOutcome { try FastJSONDecoder.decode(T.self, from: data) }
        try require(fast == foundation, "decoding \(T.self): FastJSON gave \(fast), Foundation gave \(foundation)")
    }
}
