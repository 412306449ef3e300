import Foundation

/// Foundation's `JSONDecoder` asked about one value, for the cases the fast paths leave to it.
///
/// The value's bytes are decoded as a top-level fragment (after a space, so Foundation's encoding
/// detection sees UTF-8): Foundation parses a number or string from its bytes alone, so the answer
/// is the one it gives inside the whole document. A wrapper catches the error before Foundation
/// makes it a top-level `dataCorrupted`, so the caller throws the very error Foundation throws
/// there (its internal `JSONError`, which `FastJSONDecoder.decode` turns into `dataCorrupted` as
/// `JSONDecoder.decode` does).
enum FoundationJSON {
    /// A default `JSONDecoder`, for the reference answers and for input this decoder leaves to Foundation.
    static let decoder = JSONDecoder()

    private struct Probe<T: Decodable>: Decodable {
        let result: Result<T, any Error>

        init(from decoder: any Decoder) {
            do {
                result = .success(try decoder.singleValueContainer().decode(T.self))
            } catch {
                result = .failure(error)
            }
        }
    }

    /// Foundation's answer for a number's bytes decoded as `T`.
    static func number<T: Decodable>(_ type: T.Type, _ p: UnsafePointer<UInt8>, _ count: Int) -> Result<T, any Error> {
        var fragment = Data(capacity: count + 1)
        fragment.append(UInt8(ascii: " "))
        fragment.append(p, count: count)
        return probe(T.self, fragment)
    }

    /// Foundation's answer for a string's content bytes (between the quotes) decoded as `T`.
    static func string<T: Decodable>(_ type: T.Type, _ p: UnsafePointer<UInt8>, _ count: Int) -> Result<T, any Error> {
        var fragment = Data(capacity: count + 3)
        fragment.append(contentsOf: [UInt8(ascii: " "), UInt8(ascii: "\"")])
        fragment.append(p, count: count)
        fragment.append(UInt8(ascii: "\""))
        return probe(T.self, fragment)
    }

    private static func probe<T: Decodable>(_: T.Type, _ fragment: Data) -> Result<T, any Error> {
        do {
            return try decoder.decode(Probe<T>.self, from: fragment).result
        } catch {
            return .failure(error)
        }
    }

    /// The type of the internal error Foundation's JSON parser throws, caught once from a malformed number.
    private static let parserErrorType: ObjectIdentifier? = {
        let minus = [UInt8(ascii: "-")]
        guard case .failure(let error)? = minus.withUnsafeBufferPointer({ $0.baseAddress.map { number(Int.self, $0, 1) } }),
              !(error is DecodingError) else { return nil }
        return ObjectIdentifier(type(of: error))
    }()

    /// Whether `error` is Foundation's internal parser error, which `JSONDecoder.decode` reports as
    /// `dataCorrupted` with an empty coding path.
    static func isParserError(_ error: any Error) -> Bool {
        !(error is DecodingError) && ObjectIdentifier(type(of: error)) == parserErrorType
    }

    /// The error `JSONDecoder.decode` throws for anything its parser refuses.
    static var invalidJSON: DecodingError {
        .dataCorrupted(DecodingError.Context(codingPath: [], debugDescription: "The given data was not valid JSON."))
    }
}
