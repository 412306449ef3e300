/// The small JSON object of scenarios 1, 2 and 5 (323 bytes; the runner writes the fixture),
/// for the variants that decode it:
///
///     {"id":42,"name":"NetworkLayer benchmark","email":"bench@example.com","active":true,"score":98.5,
///      "tags":["swift","linux","libcurl"],"created":"2024-01-01T00:00:00Z",
///      "address":{"street":"1 Loopback Road","city":"Localhost","zip":"12700"},"notes":"..."}
///
/// A typical small API answer: numbers, strings, a Boolean, an array and a nested object.
public struct SmallObject: Decodable, Sendable {
    public struct Address: Decodable, Sendable {
        public let street: String
        public let city: String
        public let zip: String
    }

    public let id: Int
    public let name: String
    public let email: String
    public let active: Bool
    public let score: Double
    public let tags: [String]
    public let created: String
    public let address: Address
    public let notes: String

    /// Whether this is the fixture the runner wrote (a wrong body that happens to decode fails the run).
    public var isTheFixture: Bool { id == 42 && tags.count == 3 && address.zip == "12700" }
}
