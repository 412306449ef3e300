/// A set of HTTP status codes, made of ranges and single codes (`StatusCodes(200..<300, 304)`,
/// `[200...299, 404]`): the statuses a request accepts.
///
/// The first that is set applies: the request's ``BaseRequest/acceptableStatuses``, its
/// ``BaseRequest/acceptableStatusCodes``, the provider's ``ServiceProvider/acceptableStatuses``
/// (by default its ``ServiceProvider/acceptableStatusCodes``, `200..<300`).
public struct StatusCodes: Sendable, Hashable, CustomStringConvertible, ExpressibleByArrayLiteral {
    /// The first (lowest) range, or `nil` for an empty set.
    private let head: ClosedRange<Int>?
    /// The ranges after `head`, sorted, none overlapping or adjacent; `nil` when there are none.
    private let tail: [ClosedRange<Int>]?

    /// `200..<300`: the statuses that count as success unless a request or provider says otherwise.
    public static let success = StatusCodes(200..<300)

    /// The statuses of `members`: status codes (`304`) and ranges (`200..<300`, `200...299`).
    public init(_ members: any StatusCodeExpression...) {
        self.init(members)
    }

    /// The statuses of `members`, as the variadic `init(_:)` takes them, from an array.
    public init(_ members: [any StatusCodeExpression]) {
        var ranges = members.compactMap(\.statusCodeRange).sorted { $0.lowerBound < $1.lowerBound }
        // Merged where they overlap or touch, so that each code is in one range and equal sets compare equal.
        var merged: [ClosedRange<Int>] = []
        for range in ranges {
            if let last = merged.last, range.lowerBound <= last.upperBound || range.lowerBound == last.upperBound &+ 1 {
                merged[merged.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        ranges = merged
        head = ranges.first
        tail = ranges.count > 1 ? Array(ranges.dropFirst()) : nil
    }

    /// The statuses of one range, such as a request's ``BaseRequest/acceptableStatusCodes``.
    public init(_ range: Range<Int>) {
        head = range.statusCodeRange
        tail = nil
    }

    public init(arrayLiteral members: any StatusCodeExpression...) {
        self.init(members)
    }

    public func contains(_ statusCode: Int) -> Bool {
        guard let head else { return false }
        if head.contains(statusCode) { return true }
        guard let tail else { return false }
        return tail.contains { $0.contains(statusCode) }
    }

    /// The set's ranges, lowest first, merged where they touch.
    public var ranges: [ClosedRange<Int>] {
        guard let head else { return [] }
        return [head] + (tail ?? [])
    }

    /// The ranges as an error message names them: `200-299, 304`.
    public var description: String {
        guard head != nil else { return "none" }
        return ranges.map { $0.lowerBound == $0.upperBound ? "\($0.lowerBound)" : "\($0.lowerBound)-\($0.upperBound)" }.joined(separator: ", ")
    }

    /// Which statuses a response is checked against (see ``StatusCodes``), decided once per request.
    static func resolved(request statuses: StatusCodes?, requestRange: Range<Int>?,
                         provider: any ServiceProvider) -> StatusCodes {
        if let statuses { return statuses }
        if let requestRange { return StatusCodes(requestRange) }
        return provider.acceptableStatuses
    }
}

/// A status code or a range of them, as ``StatusCodes`` takes them: `Int` (`304`), `Range<Int>`
/// (`200..<300`) and `ClosedRange<Int>` (`200...299`).
public protocol StatusCodeExpression: Sendable {
    /// The codes as one closed range; `nil` when there are none (an empty range).
    var statusCodeRange: ClosedRange<Int>? { get }
}

extension Int: StatusCodeExpression {
    public var statusCodeRange: ClosedRange<Int>? { self...self }
}

extension Range: StatusCodeExpression where Bound == Int {
    /// The range's codes, `nil` when it is empty.
    public var statusCodeRange: ClosedRange<Int>? { isEmpty ? nil : lowerBound...(upperBound - 1) }
}

extension ClosedRange: StatusCodeExpression where Bound == Int {
    public var statusCodeRange: ClosedRange<Int>? { self }
}
