import Foundation
@testable import NetworkLayer

/// A provider with snake_case keys, ISO 8601 dates, an error body type and configurable statuses.
struct ShopProvider: ServiceProvider {
    var host = "127.0.0.1"
    var httpScheme: HTTPScheme = .http
    var port: Int?
    var acceptableStatusCodes: Range<Int> = 200..<300
    var jsonDecoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
    var errorBodyType: (any ServerErrorBody.Type)? { ShopError.self }
}

/// The error body a ``ShopProvider`` server sends: `{"code": …, "message": …}`.
struct ShopError: ServerErrorBody {
    let code: Int
    let message: String
    var serverMessage: String? { message }
}

/// A server's error body of another shape than ``ShopError``: `{"error": {"kind": …}}`.
struct NestedShopError: ServerErrorBody {
    struct Detail: Decodable, Sendable { let kind: String }
    let error: Detail
    var serverMessage: String? { error.kind }
}
