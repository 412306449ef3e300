import Foundation

/// Where a request waits for its origin's limit: higher first, in order of arrival within one.
///
/// ```swift
/// let request = ThumbnailRequest()
/// request.priority = .low
/// ```
public struct RequestPriority: Sendable, Hashable, Comparable, ExpressibleByIntegerLiteral {
    /// Higher goes first.
    public let value: Int

    public init(_ value: Int) {
        self.value = value
    }

    public init(integerLiteral value: Int) {
        self.value = value
    }

    public static let low = RequestPriority(-100)
    /// The default.
    public static let normal = RequestPriority(0)
    public static let high = RequestPriority(100)

    public static func < (lhs: RequestPriority, rhs: RequestPriority) -> Bool { lhs.value < rhs.value }
}
