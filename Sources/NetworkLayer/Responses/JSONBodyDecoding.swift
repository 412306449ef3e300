internal import FastJSON
import Foundation

/// The one place that chooses the JSON decoder: FastJSON where it gives `decoder`'s results (a
/// default `JSONDecoder`) unless ``NetworkManager/usesFastJSONDecoder`` or
/// ``ServiceProvider/usesFastJSONDecoder`` opted out, else `decoder` itself.
enum JSONBodyDecoding {
    static func decode<T: Decodable>(_ type: T.Type, from data: Data, using decoder: JSONDecoder, usesFastJSONDecoder: Bool) throws -> T {
        usesFastJSONDecoder
            ? try FastJSONDecoder.decode(T.self, from: data, standingInFor: decoder)
            : try decoder.decode(T.self, from: data)
    }
}
