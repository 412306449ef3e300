import Foundation

extension MockResponse: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// What the mock answers with, without its body and with secret headers `<redacted>` (a
    /// recorded `Set-Cookie`): `MockResponse.data(200, 2 bytes, [Set-Cookie: <redacted>])`.
    public var description: String {
        func headerText(_ block: ResponseHeaders) -> String {
            let headers = block.dictionary
            guard !headers.isEmpty else { return "" }
            let lines = headers.sorted { $0.key.lowercased() < $1.key.lowercased() }
                .map { "\($0.key): \(Redactor.default.redact(header: $0.key, value: $0.value))" }
            return ", [\(lines.joined(separator: ", "))]"
        }
        func delayText(_ delay: Duration) -> String { delay == .zero ? "" : ", after \(delay)" }
        let text = switch kind {
        case .json(_, let status, let headers, let delay): "MockResponse.json(\(status)\(headerText(headers))\(delayText(delay)))"
        case .data(let data, let status, let headers, let delay):
            "MockResponse.data(\(status), \(data.count) bytes\(headerText(headers))\(delayText(delay)))"
        case .file(let name): "MockResponse.file(\(name))"
        case .failure(let error): "MockResponse.failure(\(error.errorDescription ?? "\(error)"))"
        case .events(let events, let delay): "MockResponse.events(\(events.count) events\(delayText(delay)))"
        case .webSocket: "MockResponse.webSocket"
        }
        return HeaderFields.printable(text)
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// What `dump` shows (of a manager's registered mocks too): the description.
    public var customMirror: Mirror { Mirror(self, children: ["description": description], displayStyle: .struct) }
}
