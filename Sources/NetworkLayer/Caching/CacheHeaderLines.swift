import Foundation

/// Header lines as the cache receives and keeps them: `(name, value)` pairs in the order received,
/// a name repeated once per line. Names are compared ignoring ASCII case.
typealias CacheHeaderLines = [(name: String, value: String)]

extension Array where Element == (name: String, value: String) {
    /// Every value of the lines named `name` (any case), in order.
    func values(named name: String) -> [String] {
        compactMap { $0.name.equalsIgnoringASCIICase(name) ? $0.value : nil }
    }

    /// The value of the first line named `name` (any case).
    func firstValue(named name: String) -> String? {
        first { $0.name.equalsIgnoringASCIICase(name) }?.value
    }

    /// Whether a line named `name` (any case) is present.
    func contains(named name: String) -> Bool {
        contains { $0.name.equalsIgnoringASCIICase(name) }
    }

    /// The lines without those whose lowercased name is in `names`.
    func removing(names: Set<String>) -> [(name: String, value: String)] {
        guard !names.isEmpty else { return self }
        return filter { !names.contains(SecretNames.folded($0.name)) }
    }
}
