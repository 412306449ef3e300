import Foundation

/// The URL scheme a ``ServiceProvider`` speaks.
public enum HTTPScheme: String, Sendable, CaseIterable {
    case http
    case https
}
