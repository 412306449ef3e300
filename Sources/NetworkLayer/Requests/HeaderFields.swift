import Foundation

enum HeaderFields {
    /// The provider's headers, then the authentication's, then the request's, each replacing an
    /// earlier one of the same name (ignoring case); sorted by name within each group.
    static func merged(_ provider: [String: String], _ authentication: [(name: String, value: String)] = [],
                       overriddenBy request: [String: String]) throws(NetworkError) -> [(name: String, value: String)]
    {
        var result: [(name: String, value: String)] = []
        result.reserveCapacity(provider.count + authentication.count + request.count)
        for (name, value) in provider.sorted(by: { $0.key < $1.key }) {
            try validate(name: name, value: value)
            result.append((name, value))
        }
        for header in authentication {
            try validate(name: header.name, value: header.value)
            result.removeAll { $0.name.equalsIgnoringASCIICase(header.name) }
            result.append(header)
        }
        for (name, value) in request.sorted(by: { $0.key < $1.key }) {
            try validate(name: name, value: value)
            result.removeAll { $0.name.equalsIgnoringASCIICase(name) }
            result.append((name, value))
        }
        return result
    }

    /// A name must be an RFC 9110 token; a value may hold no control character but tab.
    /// Anything else could split the header block (CR, LF) or truncate it (NUL).
    static func validate(name: String, value: String) throws(NetworkError) {
        guard !name.isEmpty, name.utf8.allSatisfy(isTokenByte) else {
            throw .invalidRequest(.init(reason: "the header name \"\(printable(name))\" is not valid "
                                        + "(letters, digits and !#$%&'*+-.^_`|~ only)"))
        }
        guard value.utf8.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }) else {
            throw .invalidRequest(.init(reason: "the value of the header \"\(name)\" contains a control character "
                                        + "(CR, LF, NUL or another)"))
        }
    }

    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// The text with control characters and bidirectional controls shown as escapes, safe to put
    /// in a message or a log line.
    static func printable(_ text: String) -> String {
        text.escapingControlCharacters
    }
}
