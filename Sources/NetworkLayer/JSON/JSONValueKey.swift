/// Any object key, as it is in the JSON (for ``JSONValue`` and parameters read from JSON).
struct JSONValueKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }

    init(_ key: String) { stringValue = key }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { stringValue = String(intValue) }
}
