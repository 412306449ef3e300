import Foundation

/// How arrays are written in a query or form body.
public enum ArrayEncoding: Sendable, Equatable {
    /// `tag=a&tag=b` (the default).
    case repeatedKeys
    /// `tag[]=a&tag[]=b`.
    case brackets
    /// `tag=a,b` (each item percent-encoded, so a comma inside an item stays distinguishable).
    case commaSeparated
}
