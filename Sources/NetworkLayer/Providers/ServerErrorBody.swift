import Foundation

/// An error body a backend sends with failing statuses, e.g. `{"code": 42, "message": "Out of stock"}`.
///
/// ```swift
/// struct ShopError: ServerErrorBody {
///     let code: Int
///     let message: String
///     var serverMessage: String? { message }
/// }
/// struct ShopProvider: ServiceProvider {
///     ...
///     var errorBodyType: (any ServerErrorBody.Type)? { ShopError.self }
/// }
///
/// catch {
///     if let shopError = error.serverError(as: ShopError.self) { print(shopError.code) }
/// }
/// ```
public protocol ServerErrorBody: Decodable, Sendable {
    /// The server's explanation, shown in the error's description. Default `nil`.
    var serverMessage: String? { get }
}

extension ServerErrorBody {
    public var serverMessage: String? { nil }
}
