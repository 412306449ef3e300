import Foundation

/// Decoding a value nested at a key path (`"data.items"`) without a wrapper type: the path travels
/// in a task-local value, so a shared decoder needs no mutation.
enum KeyPathDecoding {
    @TaskLocal static var keyPath = ""

    struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    struct Value<T: Decodable>: Decodable {
        let value: T

        init(from decoder: any Decoder) throws {
            let keys = KeyPathDecoding.keyPath.split(separator: ".").map { Key(stringValue: String($0)) }
            var container = try decoder.container(keyedBy: Key.self)
            for key in keys.dropLast() {
                container = try container.nestedContainer(keyedBy: Key.self, forKey: key)
            }
            value = try container.decode(T.self, forKey: keys.last!)
        }
    }
}
