import Foundation

/// How `params` travel, when the default by method is not wanted.
public enum ParameterEncoding: Sendable, Equatable {
    /// In the query string (the default for GET, HEAD and OPTIONS).
    case query
    /// As a JSON body (the default for POST, PUT, PATCH and DELETE).
    case json
    /// As an `application/x-www-form-urlencoded` body.
    case form
}
