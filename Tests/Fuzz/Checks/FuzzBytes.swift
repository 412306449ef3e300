import Foundation

/// Reads a fuzzer's bytes as the choices that build a structured input (a parameter tree, a
/// retry policy): each read consumes bytes from the front; when they run out, every read gives
/// zero, so any input, however short, builds something.
struct FuzzBytes {
    private let bytes: [UInt8]
    private var position = 0

    init(_ data: Data) {
        bytes = Array(data)
    }

    var isAtEnd: Bool { position >= bytes.count }

    mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    /// A number in `0..<bound` (`bound` > 0) from one or two bytes.
    mutating func choice(_ bound: Int) -> Int {
        bound <= 256 ? Int(byte()) % bound : Int(UInt16(byte()) << 8 | UInt16(byte())) % bound
    }

    mutating func bool() -> Bool { byte() & 1 == 1 }

    /// Eight bytes as a `UInt64`.
    mutating func word() -> UInt64 {
        (0..<8).reduce(0) { value, _ in value << 8 | UInt64(byte()) }
    }

    /// The next `count` bytes (fewer at the end).
    mutating func take(_ count: Int) -> [UInt8] {
        let end = min(bytes.count, position + max(0, count))
        defer { position = max(position, end) }
        return position < end ? Array(bytes[position..<end]) : []
    }

    /// Everything not read yet.
    mutating func rest() -> [UInt8] { take(bytes.count - position) }
}
