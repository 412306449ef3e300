import Foundation

/// A backend's error body (``ServiceProvider/errorBodyType``), read with `serverError(as:)`.
public protocol ServerErrorBody: Decodable, Sendable {
    /// The server's explanation, shown in the error's description. Default `nil`.
    var serverMessage: String? { get }
}

extension ServerErrorBody {
    public var serverMessage: String? { nil }
}
