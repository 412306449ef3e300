import Foundation

/// Decoding a value nested at a key path (`"data.items"`) without a wrapper type: the path travels
/// in a task-local value, so a shared decoder needs no mutation.
enum KeyPathDecoding {
    @TaskLocal static var keyPath = ""

    /// The keys of a dot-separated path; empty components (`"."`, `"a..b"`, `".a"`) are dropped.
    static func keys(of path: String) -> [Key] {
        path.split(separator: ".").map { Key(stringValue: String($0)) }
    }

    /// Why `path` cannot be used, or `nil` when it is a usable key path: every component non-empty.
    static func problem(with path: String) -> String? {
        guard !path.isEmpty else { return nil }  // an empty path means the top level
        if path.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty) {
            return "the key path \"\(HeaderFields.printable(path))\" has an empty component; write keys separated by single dots, as in \"data.items\""
        }
        return nil
    }

    struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    struct Value<T: Decodable>: Decodable {
        let value: T

        init(from decoder: any Decoder) throws {
            let keys = KeyPathDecoding.keys(of: KeyPathDecoding.keyPath)
            guard let last = keys.last else {
                // `prepare` refuses such a path before sending; this guards a direct caller.
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription:
                    "the key path \"\(KeyPathDecoding.keyPath)\" names no key"))
            }
            var container = try decoder.container(keyedBy: Key.self)
            for key in keys.dropLast() {
                container = try container.nestedContainer(keyedBy: Key.self, forKey: key)
            }
            value = try container.decode(T.self, forKey: last)
        }
    }
}
