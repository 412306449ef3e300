import Synchronization

/// A response's header block as received (folded lines unfolded, see ``ResponseHeaderBlock``),
/// turned into a dictionary only when someone reads it (most responses are decoded without a look
/// at their headers). The dictionary, once built, is published through an atomic reference held
/// inline: no lock object per response.
final class ResponseHeaders: Sendable {
    /// `Name: value` lines as received, each ended by `\n` (the CR removed).
    private let raw: [UInt8]
    /// The headers a mock gave, or `nil` for headers received as lines.
    private let given: Given?

    /// Headers given rather than received: a dictionary, or lines (a name may repeat) and their dictionary.
    private final class Given: Sendable {
        let dictionary: [String: String]
        let fields: [(name: String, value: String)]?

        init(dictionary: [String: String], fields: [(name: String, value: String)]?) {
            self.dictionary = dictionary
            self.fields = fields
        }
    }
    /// The dictionary built from `raw` by the first reader. Two readers racing may both build it;
    /// the first stored wins and both return that one.
    private let parsed = AtomicLazyReference<Parsed>()

    private final class Parsed: Sendable {
        let dictionary: [String: String]
        init(_ dictionary: [String: String]) { self.dictionary = dictionary }
    }

    init(raw: [UInt8]) {
        self.raw = raw
        given = nil
    }

    init(_ dictionary: [String: String]) {
        raw = []
        given = Given(dictionary: dictionary, fields: nil)
    }

    /// Header lines given one by one, in order; a name may repeat (two `Set-Cookie` lines).
    init(fields: [(name: String, value: String)]) {
        raw = []
        var joined: [String: String] = [:]
        for field in fields {
            if let existing = joined[field.name] { joined[field.name] = existing + ", " + field.value } else { joined[field.name] = field.value }
        }
        given = Given(dictionary: joined, fields: fields)
    }

    /// Every header by the name the server used; repeated headers joined with `", "`.
    var dictionary: [String: String] {
        if let given { return given.dictionary }
        if let cached = parsed.load() { return cached.dictionary }
        var result: [String: String] = [:]
        forEachLine { name, value in
            let key = String(decoding: name, as: UTF8.self)
            let text = String(decoding: value, as: UTF8.self)
            if let existing = result[key] { result[key] = existing + ", " + text } else { result[key] = text }
        }
        return parsed.storeIfNil(Parsed(result)).dictionary
    }

    /// The value of one header, ignoring the case of its name: every line of that name, joined
    /// with `", "`. Read from the lines as received, so the answer is the same before and after
    /// ``dictionary`` is built (which keeps `X-A` and `x-a` apart, as the server spelled them).
    func value(for name: String) -> String? {
        if let given {
            if let fields = given.fields {
                let values = fields.lazy.filter { $0.name.equalsIgnoringASCIICase(name) }.map(\.value)
                return values.isEmpty ? nil : values.joined(separator: ", ")
            }
            // Made from a dictionary (a mock's headers): no lines to read.
            if let exact = given.dictionary[name] { return exact }
            return given.dictionary.first { $0.key.equalsIgnoringASCIICase(name) }?.value
        }
        var name = name
        return name.withUTF8 { name in
            var found: String?
            forEachLine { lineName, value in
                guard lineName.count == name.count, lineName.elementsEqualIgnoringASCIICase(name) else { return }
                let text = String(decoding: value, as: UTF8.self)
                found = found.map { $0 + ", " + text } ?? text
            }
            return found
        }
    }

    /// The bytes of one header's value as received, ignoring the case of its name: every line of
    /// that name joined with `", "`, as ``value(for:)`` joins them; a mock's value as UTF-8.
    func bytes(for name: String) -> [UInt8]? {
        guard given == nil else { return value(for: name).map { Array($0.utf8) } }
        var name = name
        return name.withUTF8 { name in
            var found: [UInt8]?
            forEachLine { lineName, value in
                guard lineName.count == name.count, lineName.elementsEqualIgnoringASCIICase(name) else { return }
                found = (found.map { $0 + [UInt8(ascii: ","), UInt8(ascii: " ")] } ?? []) + value
            }
            return found
        }
    }

    /// Every value of one header, ignoring the case of its name: one per line, in the order
    /// received, never joined (a `Set-Cookie` date holds a comma). Empty when absent.
    func values(for name: String) -> [String] {
        if let given {
            if let fields = given.fields { return fields.filter { $0.name.equalsIgnoringASCIICase(name) }.map(\.value) }
            // A dictionary (a mock's headers): one value per key; the exact spelling first.
            let dictionary = given.dictionary
            var values = dictionary[name].map { [$0] } ?? []
            for key in dictionary.keys.sorted() where key != name && key.equalsIgnoringASCIICase(name) { values.append(dictionary[key] ?? "") }
            return values
        }
        var name = name
        return name.withUTF8 { name in
            var found: [String] = []
            forEachLine { lineName, value in
                guard lineName.count == name.count, lineName.elementsEqualIgnoringASCIICase(name) else { return }
                found.append(String(decoding: value, as: UTF8.self))
            }
            return found
        }
    }

    /// Every header by the name as sent, each with all its values in order: what record mode writes.
    var valuesByName: [String: [String]] {
        var result: [String: [String]] = [:]
        if let fields = given?.fields {
            for field in fields { result[field.name, default: []].append(field.value) }
        } else if let given {
            for (name, value) in given.dictionary { result[name] = [value] }
        } else {
            forEachLine { name, value in
                result[String(decoding: name, as: UTF8.self), default: []].append(String(decoding: value, as: UTF8.self))
            }
        }
        return result
    }

    /// Every line as received, in order (a mock's sorted by name): what the response cache stores.
    var lines: [(name: String, value: String)] {
        if let given {
            if let fields = given.fields { return fields.map { (name: $0.name, value: $0.value) } }
            return given.dictionary.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
        }
        var lines: [(name: String, value: String)] = []
        forEachLine { name, value in
            lines.append((name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self)))
        }
        return lines
    }

    /// ``lines`` as bytes, without a `String` per line when they were received: for a transport
    /// handing the headers to another library's types.
    func forEachLineBytes(_ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Void) {
        guard given != nil else { return forEachLine(body) }
        for line in lines {
            var name = line.name, value = line.value
            name.withUTF8 { name in value.withUTF8 { value in body(name, value) } }
        }
    }

    /// The block of `lines` (a stored response's), as ``init(raw:)`` takes it: `Name: value`
    /// lines each ended by `\n`. A line whose name is empty, starts with white space (a continuation
    /// line is never a header) or holds a colon, or whose name or value holds a CR, an LF or a NUL,
    /// is left out, so that no line can forge another.
    static func block(_ lines: [(name: String, value: String)]) -> [UInt8] {
        var raw: [UInt8] = []
        raw.reserveCapacity(lines.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 3 })
        for line in lines {
            var name = line.name, value = line.value
            let ok = name.withUTF8 { name in
                value.withUTF8 { value in
                    !name.isEmpty && name[0] != 0x20 && name[0] != 0x09
                        && !name.contains { $0 == 0x3A || $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }
                        && !value.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }
                }
            }
            guard ok else { continue }
            name.withUTF8 { raw.append(contentsOf: $0) }
            raw.append(UInt8(ascii: ":"))
            raw.append(UInt8(ascii: " "))
            value.withUTF8 { raw.append(contentsOf: $0) }
            raw.append(UInt8(ascii: "\n"))
        }
        return raw
    }

    /// Each line's name and value (without the blanks around it); a line without a colon is skipped.
    private func forEachLine(_ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Void) {
        raw.withUnsafeBufferPointer { bytes in
            var start = 0
            while start < bytes.count {
                var end = start
                while end < bytes.count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
                var colon = start
                while colon < end, bytes[colon] != UInt8(ascii: ":") { colon += 1 }
                if colon < end {
                    var first = colon + 1, last = end
                    while first < last, bytes[first] == 0x20 || bytes[first] == 0x09 { first += 1 }
                    while last > first, bytes[last - 1] == 0x20 || bytes[last - 1] == 0x09 { last -= 1 }
                    body(UnsafeBufferPointer(rebasing: bytes[start..<colon]), UnsafeBufferPointer(rebasing: bytes[first..<last]))
                }
                start = end + 1
            }
        }
    }
}
