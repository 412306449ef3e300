import Foundation

/// A typical response model: required and optional fields of every kind a default `JSONDecoder`
/// treats specially (`Date`, `Data`, `URL`, `Decimal`), narrow integers, nested models and arrays,
/// a pair decoded by hand from an unkeyed container, and a dynamic `FuzzJSON` field.
struct FuzzRecord: Decodable, Equatable {
    var id: Int
    var name: String?
    var score: Double?
    var ratio: Float?
    var small: Int8?
    var big: UInt64?
    var flags: [Bool]?
    var when: Date?
    var blob: Data?
    var link: URL?
    var amount: Decimal?
    var pair: Pair?
    var children: [FuzzRecord]?
    var extra: FuzzJSON?

    /// `[number, "text"?]`, read element by element.
    struct Pair: Decodable, Equatable {
        var number: Int
        var text: String?

        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            number = try container.decode(Int.self)
            text = container.isAtEnd ? nil : try container.decodeIfPresent(String.self)
        }
    }
}
