import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// Server text never reaches a terminal raw: the control characters and bidirectional controls a
/// hostile server puts in its status line, header names and values, bodies and error messages are
/// escaped in the text log, in every text of the log entries and in error descriptions.
@Suite("Server text in the log", .sharedServers(faultModes: [.serve]), .sharing)
struct ServerTextEscapingTests {
    /// The control characters in `text` that may not be there: every one but, where `body` allows
    /// it, tab and line feed. C1 counts (U+009B is CSI to some terminals), and so do the
    /// bidirectional controls (U+202E makes what follows read right to left).
    static func rawControls(in text: String, allowingLineBreaks: Bool) -> [String] {
        text.unicodeScalars.filter { scalar in
            let value = scalar.value
            if bidiControls.contains(value) { return true }
            guard value < 0x20 || (0x7F...0x9F).contains(value) else { return false }
            return !(allowingLineBreaks && (value == 0x09 || value == 0x0A))
        }.map { "U+" + String($0.value, radix: 16, uppercase: true) }
    }

    /// Unicode's bidirectional formatting characters (UAX #9): embeddings and overrides, isolates,
    /// the marks, and the Arabic letter mark.
    static let bidiControls: Set<UInt32> = Set(0x202A...0x202E).union(0x2066...0x2069).union([0x200E, 0x200F, 0x061C])

    /// The bidi text of `/bidi-text` as the log must show it.
    static let escapedBidi = #"rtl\u{202E}evil\u{202C} lre\u{202A} lle\u{202B} pdf\u{202C} pdi\u{2066}x\u{2067}y\u{2068}z\u{2069} "#
        + #"lrm\u{200E} rlm\u{200F} alm\u{061C} end"#

    @Test("Escapes bidirectional controls in header values and names and a text body, in the text log and the log entries")
    func bidiControlsAreEscaped() async throws {
        let server = try SharedServers.fault(.serve)
        let log = LogCollector()
        let entries = LogEntryCollector()
        let body = try await makeManager(log: log, entries: entries).perform(TestRequest<String>(server.provider(), "/bidi-text"))
        #expect(body.contains("\u{202E}"), "the body itself is handed over as the server sent it")
        let text = log.text
        #expect(Self.rawControls(in: text, allowingLineBreaks: true).isEmpty, "\(Self.rawControls(in: text, allowingLineBreaks: true))")
        #expect(text.contains("  X-Bidi: " + Self.escapedBidi), "\(text)")
        #expect(text.contains(#"  X-\u{202E}Name: reversed name"#), "\(text)")
        #expect(text.contains("  first line " + Self.escapedBidi), "\(text)")
        let response = try #require(entries.all.first { $0.phase == .response && $0.level == .info })
        #expect(response.headers.contains(.init(name: "X-Bidi", value: Self.escapedBidi)), "\(response.headers)")
        #expect(response.headers.contains(.init(name: #"X-\u{202E}Name"#, value: "reversed name")), "\(response.headers)")
        for text in entries.texts { #expect(Self.rawControls(in: text, allowingLineBreaks: true).isEmpty, "\(text)") }
    }

    @Test("A server's error message with bidirectional controls is escaped in the error's description and the log")
    func bidiControlsInAnErrorMessageAreEscaped() async throws {
        let server = try SharedServers.fault(.serve)
        let log = LogCollector()
        let entries = LogEntryCollector()
        let provider = SecretProvider(port: server.port, errorBodyType: MessageErrorBody.self)
        let error = try #require(await networkError {
            try await makeManager(log: log, entries: entries).perform(TestRequest<JSONValue>(provider, "/bidi-text?status=400"))
        })
        let description = try #require(error.errorDescription)
        #expect(description.contains("refused " + Self.escapedBidi), "\(description)")
        #expect(Self.rawControls(in: description, allowingLineBreaks: false).isEmpty)
        #expect((error.context?.serverError as? MessageErrorBody)?.message.contains("\u{202E}") == true)
        #expect(Self.rawControls(in: log.text, allowingLineBreaks: true).isEmpty, "\(log.text)")
        for text in entries.texts { #expect(Self.rawControls(in: text, allowingLineBreaks: true).isEmpty, "\(text)") }
    }

    @Test("Escapes control characters in the status text, header names and values and a text body of the text log")
    func textLogEscapesHeadersAndBody() async throws {
        let server = try SharedServers.fault(.serve)
        let log = LogCollector()
        let response = try await makeManager(log: log).perform(TestRequest<String>(server.provider(), "/hostile-text"))
        #expect(response.contains("\u{1B}[31m"), "the body itself is handed over as the server sent it")
        let text = log.text
        // The log's own lines are the only ones: tab and newline, nothing else.
        #expect(Self.rawControls(in: text, allowingLineBreaks: true).isEmpty, "\(Self.rawControls(in: text, allowingLineBreaks: true))")
        // Headers: names and values escaped, the tab in a value too (a value is one line).
        #expect(text.contains(#"  X-Escape: \u{1B}[31mred\u{1B}[0m\u{1B}]0;owned\u{07}"#), "\(text)")
        #expect(text.contains(#"  X-Bell-Del: ring\u{07} del\u{7F} tab\there"#), "\(text)")
        #expect(text.contains(#"  X-\u{1B}[1mName: bold name"#), "\(text)")
        #expect(text.contains(#"  X-C1: csi\u{009B}31m"#), "\(text)")
        // Body: CR, NUL, ESC, BEL, DEL and C1 escaped; its lines stay indented, so the forged one cannot pass for the log's.
        #expect(text.contains(#"  first line \u{1B}[31mred\u{1B}[0m \u{1B}[2J\u{1B}]0;owned\u{07} bell\u{07} del\u{7F} csi\u{009B}31m\r"#), "\(text)")
        #expect(text.contains(#"  [NetworkLayer #1] ← 200 GET https://bank.example/forged\rcarriage\0nul"#), "\(text)")
        let lines = text.split(separator: "\n")
        let ownID = try #require(log.all.first?.prefix { $0 != "]" })
        for line in lines where line.hasPrefix("[") { #expect(line.hasPrefix(ownID), "a line the server forged: \(line)") }
        // The status text is not shown at all (the status code is); whatever shows of it is escaped.
        #expect(!text.contains("OK\u{1B}"))
    }

    @Test("Escapes control characters in every text of the log entries: headers, message, body preview")
    func entriesEscapeEveryText() async throws {
        let server = try SharedServers.fault(.serve)
        let entries = LogEntryCollector()
        _ = try await makeManager(entries: entries).perform(TestRequest<String>(server.provider(), "/hostile-text"))
        let response = try #require(entries.all.first { $0.phase == .response && $0.level == .info })
        #expect(response.headers.contains(.init(name: "X-Bell-Del", value: #"ring\u{07} del\u{7F} tab\there"#)), "\(response.headers)")
        #expect(response.headers.contains(.init(name: #"X-\u{1B}[1mName"#, value: "bold name")), "\(response.headers)")
        let preview = try #require(entries.all.first { $0.phase == .response && $0.level == .debug }?.body)
        #expect(preview.contains(#"\r"#) && preview.contains(#"\0nul"#) && preview.contains("\ttab\n"), "tab and newline shape a body: \(preview)")
        for entry in entries.all {
            var singleLine = [entry.url, entry.message, entry.errorDescription ?? "", entry.description]
            singleLine += entry.headers.flatMap { [$0.name, $0.value] }
            for text in singleLine { #expect(Self.rawControls(in: text, allowingLineBreaks: false).isEmpty, "\(text)") }
            for text in [entry.body ?? "", entry.curlCommand ?? ""] {
                #expect(Self.rawControls(in: text, allowingLineBreaks: true).isEmpty, "\(text)")
            }
        }
    }

    @Test("Escapes DEL and C1 characters that a JSON body carries raw inside its strings (JSON allows them)")
    func jsonPreviewEscapesDELAndC1() async throws {
        let server = try SharedServers.fault(.serve)
        let log = LogCollector()
        let entries = LogEntryCollector()
        let net = makeManager(log: log, entries: entries)
        let value = try await net.perform(TestRequest<JSONValue>(server.provider(), "/hostile-text?json=1"))
        #expect(value["note"]?.stringValue?.contains("\u{7F}") == true, "the decoded value is the server's, unchanged")
        #expect(Self.rawControls(in: log.text, allowingLineBreaks: true).isEmpty, "\(log.text)")
        #expect(log.text.contains(#"del\u{7F} csi\u{009B}31m"#), "\(log.text)")
        for text in entries.texts { #expect(Self.rawControls(in: text, allowingLineBreaks: true).isEmpty, "\(text)") }
    }

    @Test("A server's error message is escaped in the error's description and in the failure the log shows")
    func errorMessageIsEscaped() async throws {
        let server = try SharedServers.fault(.serve)
        let log = LogCollector()
        let entries = LogEntryCollector()
        let provider = SecretProvider(port: server.port, errorBodyType: MessageErrorBody.self)
        let error = try #require(await networkError {
            try await makeManager(log: log, entries: entries).perform(TestRequest<JSONValue>(provider, "/hostile-text?status=400"))
        })
        let description = try #require(error.errorDescription)
        #expect(description.contains(#"refused \u{1B}[31mred\u{1B}[0m \u{1B}[2J\u{1B}]0;owned\u{07} bell\u{07} del\u{7F} csi\u{009B}31m"#),
                "\(description)")
        #expect(Self.rawControls(in: description, allowingLineBreaks: false).isEmpty)
        // The typed body keeps the server's words as they were, for code that wants them.
        #expect((error.context?.serverError as? MessageErrorBody)?.message.contains("\u{1B}[2J") == true)
        #expect(Self.rawControls(in: log.text, allowingLineBreaks: true).isEmpty, "\(log.text)")
        let failure = try #require(entries.all.first { $0.phase == .failure })
        #expect(Self.rawControls(in: failure.message + (failure.errorDescription ?? ""), allowingLineBreaks: false).isEmpty)
    }

    @Test("A response refused for a NUL or a bare CR in a header leaves no raw control character in the log", arguments: [
        "/nul-header", "/bare-cr-header",
    ])
    func refusedHeadersLeaveNoRawControls(path: String) async throws {
        let server = try SharedServers.fault(.serve)
        let log = LogCollector()
        let entries = LogEntryCollector()
        _ = await networkError { try await makeManager(log: log, entries: entries).perform(TestRequest<JSONValue>(server.provider(), path)) }
        #expect(log.text.contains("✗"))
        #expect(Self.rawControls(in: log.text, allowingLineBreaks: true).isEmpty, "\(log.text)")
        for text in entries.texts { #expect(Self.rawControls(in: text, allowingLineBreaks: true).isEmpty, "\(text)") }
    }

    @Test("A streamed body's preview escapes its control characters too")
    func streamPreviewIsEscaped() async throws {
        let server = try SharedServers.fault(.serve)
        let log = LogCollector()
        let stream = try await makeManager(log: log).perform(StreamRequest<ByteStream>(server.provider(), "/hostile-text"))
        _ = await collectLines(stream)
        let text = log.text
        #expect(text.contains("⇣ stream of"), "\(text)")
        #expect(text.contains(#"\u{1B}[2J"#), "\(text)")
        #expect(Self.rawControls(in: text, allowingLineBreaks: true).isEmpty, "\(text)")
    }

    @Test("A secret holding a control character is still redacted where the log shows it escaped")
    func secretWithControlCharacterIsRedactedInItsEscapedForm() async throws {
        let server = try await TestServer.shared()
        let log = LogCollector()
        let entries = LogEntryCollector()
        // The server writes the query item `body` back raw as a text body: the log escapes its ESC.
        let provider = server.secretProvider(secretQueryItemNames: ["body"])
        let request = TestRequest<String>(provider, "/status/200", params: ["body": "pw\u{1B}canary-7", "contentType": "text/plain"])
        #expect(try await makeManager(log: log, entries: entries).perform(request) == "pw\u{1B}canary-7")
        #expect(log.text.contains("  <redacted>\n"), "\(log.text)")
        #expect(!log.text.contains("canary-7"), "\(log.text)")
        #expect(!entries.texts.contains { $0.contains("canary-7") }, "\(entries.texts)")
    }
}

@Suite("Control character escaping", .sharing)
struct ControlCharacterEscapingTests {
    @Test("Text without control characters comes back as it is; every C0, DEL and C1 character is escaped")
    func escapesEveryControlCharacter() {
        #expect("plain text, ünïcödé ✓ — fine".escapingControlCharacters == "plain text, ünïcödé ✓ — fine")
        #expect("a\u{1B}b\u{07}c\u{7F}d\u{9B}e\u{85}f\u{0}g\r\n\t".escapingControlCharacters
                == #"a\u{1B}b\u{07}c\u{7F}d\u{009B}e\u{0085}f\0g\r\n\t"#)
        #expect("line 1\n\tline 2\r\n\u{1B}".escapingControlCharactersInBody == "line 1\n\tline 2\\r\n\\u{1B}")
        // U+00A0 (C2 A0) is not a control character; U+0080 (C2 80) is.
        #expect("\u{A0}\u{80}".escapingControlCharacters == "\u{A0}\\u{0080}")
        for value in UInt32(0)..<0x100 {
            let scalar = Unicode.Scalar(value)!
            let escaped = String(scalar).escapingControlCharacters
            let isControl = value < 0x20 || (0x7F...0x9F).contains(value)
            #expect((escaped != String(scalar)) == isControl, "U+\(String(value, radix: 16))")
            #expect(ServerTextEscapingTests.rawControls(in: escaped, allowingLineBreaks: false).isEmpty)
        }
    }

    @Test("Every bidirectional control is escaped, in a line and in a body, and by HeaderFields.printable; its neighbours are not")
    func escapesEveryBidiControl() {
        for value in ServerTextEscapingTests.bidiControls {
            let scalar = Unicode.Scalar(value)!
            let expected = "a" + scalar.escaped(asASCII: true) + "b"
            #expect("a\(scalar)b".escapingControlCharacters == expected, "U+\(String(value, radix: 16))")
            #expect("a\(scalar)b".escapingControlCharactersInBody == expected, "U+\(String(value, radix: 16))")
            #expect(HeaderFields.printable("a\(scalar)b") == expected, "U+\(String(value, radix: 16))")
        }
        #expect("x\u{202E}y".escapingControlCharacters == #"x\u{202E}y"#)
        // Neighbours in the same blocks, joiners and other format characters stay as they are.
        for value: UInt32 in [0x061B, 0x061D, 0x200B, 0x200C, 0x200D, 0x2028, 0x2029, 0x202F, 0x2065, 0x206A, 0x0600, 0xFEFF] {
            let text = "a" + String(Unicode.Scalar(value)!) + "b"
            #expect(text.escapingControlCharacters == text, "U+\(String(value, radix: 16))")
        }
        // Each scalar from U+0600 to U+20FF: escaped exactly when it is a bidi control.
        for value in UInt32(0x0600)...0x20FF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = String(scalar)
            #expect((text.escapingControlCharacters != text) == ServerTextEscapingTests.bidiControls.contains(value),
                    "U+\(String(value, radix: 16))")
        }
    }
}
