import Foundation

/// A libcurl failure: its numeric code and message. Found as a ``NetworkError``'s `underlyingError`.
public struct CurlError: Error, Sendable, CustomStringConvertible {
    /// libcurl's `CURLcode` (see `man libcurl-errors`).
    public let code: Int
    /// libcurl's own explanation, from its error buffer or `curl_easy_strerror`.
    public let message: String

    public var description: String { "curl error \(code): \(message)" }
}
