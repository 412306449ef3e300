/// How far a compressed response may expand when libcurl decodes it: the guard against a
/// decompression bomb. A response with a `Content-Encoding` fails with
/// ``NetworkError/transport(_:)`` once its decoded body is over `floor` bytes **and** more than
/// `ratio` times the compressed bytes so far. ``NetworkManager/maximumResponseSize`` still
/// applies to the decoded size.
public struct DecompressionLimit: Sendable, Hashable, CustomStringConvertible {
    /// The largest decoded/compressed ratio accepted above the floor; `nil` for no limit.
    public let ratio: Int?
    public let floor: Int

    public static let defaultFloor = 16 << 20

    /// Refuse a body that expands more than `ratio` times once it is over `floor` bytes decoded.
    /// A ratio below 1 counts as 1, a negative floor as 0.
    public static func ratio(_ ratio: Int, floor: Int = defaultFloor) -> DecompressionLimit {
        DecompressionLimit(ratio: max(1, ratio), floor: max(0, floor))
    }

    /// No guard: any expansion is accepted (``NetworkManager/maximumResponseSize`` still applies).
    public static let none = DecompressionLimit(ratio: nil, floor: 0)

    /// The default: a ratio of 100 above 16 MiB.
    public static let standard = DecompressionLimit.ratio(100)

    private init(ratio: Int?, floor: Int) {
        self.ratio = ratio
        self.floor = floor
    }

    public var description: String {
        guard let ratio else { return "no decompression limit" }
        return "a decompression ratio of at most \(ratio) above \(floor) bytes"
    }

    /// Whether `decoded` bytes out of `compressed` bytes break this limit. Never traps.
    func isExceeded(decoded: Int64, compressed: Int64) -> Bool {
        guard let ratio, decoded > Int64(floor) else { return false }
        let (allowed, overflow) = max(compressed, 1).multipliedReportingOverflow(by: Int64(ratio))
        return !overflow && decoded > allowed
    }
}
