import Foundation

/// The key of an array element in a coding path, as Foundation writes it: "Index 3", intValue 3.
struct JSONIndexKey: CodingKey {
    let index: Int
    init(_ index: Int) { self.index = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { index = intValue }
    var stringValue: String { "Index \(index)" }
    var intValue: Int? { index }
}

/// The key of `superDecoder()` in a keyed container, as in Foundation: "super".
struct JSONSuperKey: CodingKey {
    init() {}
    init?(stringValue: String) { guard stringValue == "super" else { return nil } }
    init?(intValue: Int) { nil }
    var stringValue: String { "super" }
    var intValue: Int? { nil }
}

/// No key: a value decoded at its decoder's own path (single-value containers, the top level).
struct JSONNoKey: CodingKey {
    init() {}
    init?(stringValue: String) { nil }
    init?(intValue: Int) { nil }
    var stringValue: String { "" }
    var intValue: Int? { nil }
}
