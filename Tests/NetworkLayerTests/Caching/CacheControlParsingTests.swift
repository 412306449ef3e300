import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// The `Cache-Control` parser (RFC 9111 section 5.2, RFC 9110 list syntax): examples, then
/// properties over random directive lists.
@Suite("Cache-Control parsing", .sharing)
struct CacheControlParsingTests {
    typealias Directive = CacheControl.Directive

    @Test("Directives with token and quoted arguments, names in any case, empty elements and white space skipped")
    func examples() {
        let parsed = CacheControl(" , Max-Age=60,,no-cache=\"Set-Cookie, X-A\" ,\tPRIVATE ,ext=\"a\\\"b\\\\c\" , ")
        #expect(parsed.directives == [Directive(name: "max-age", argument: "60"),
                                      Directive(name: "no-cache", argument: "Set-Cookie, X-A"),
                                      Directive(name: "private"),
                                      Directive(name: "ext", argument: "a\"b\\c")])
        #expect(parsed.seconds("max-age") == .value(60))
        #expect(parsed.seconds("min-fresh") == .absent)
        #expect(CacheControl.fieldNames(in: "Set-Cookie, X-A, ,bad name") == ["set-cookie", "x-a"])
    }

    @Test("A comma inside a quoted string does not end the directive; an unterminated string runs to the end, malformed")
    func quoted() {
        #expect(CacheControl("a=\"x, max-age=5\", b").directives == [Directive(name: "a", argument: "x, max-age=5"), Directive(name: "b")])
        #expect(CacheControl("a=\"x, b").directives == [Directive(name: "a", argument: "x, b", isMalformed: true)])
        #expect(CacheControl("a=\"x\\").directives == [Directive(name: "a", argument: "x\\", isMalformed: true)])
    }

    @Test("Elements off the grammar keep their name, marked malformed, so the strict reading applies")
    func malformed() {
        #expect(CacheControl("max-age =5").directives == [Directive(name: "max-age", isMalformed: true)])
        #expect(CacheControl("max-age= 5").directives == [Directive(name: "max-age", argument: "", isMalformed: true)])
        #expect(CacheControl("no-store junk, max-age=5").directives == [Directive(name: "no-store", isMalformed: true),
                                                                         Directive(name: "max-age", argument: "5")])
        #expect(CacheControl("a=\"x\"y, b").directives == [Directive(name: "a", argument: "x", isMalformed: true), Directive(name: "b")])
        #expect(CacheControl("\"quoted\", =5, (x), b").directives == [Directive(name: "b")])
        // Skipping the rest of a malformed element skips a quoted string whole, commas and all.
        #expect(CacheControl("no-store junk\"x, y\", max-age=5").directives == [Directive(name: "no-store", isMalformed: true),
                                                                                Directive(name: "max-age", argument: "5")])
        #expect(CacheControl("\"a,b\", c").directives == [Directive(name: "c")])
        #expect(CacheControl("max-age=5").seconds("max-age") == .value(5))
        #expect(CacheControl("max-age =5").seconds("max-age") == .invalid)
    }

    @Test("delta-seconds: digits only, leading zeros fine, capped at 2^31 however long; anything else invalid")
    func deltaSeconds() {
        #expect(CacheControl.deltaSeconds("0") == 0)
        #expect(CacheControl.deltaSeconds("003600") == 3600)
        #expect(CacheControl.deltaSeconds("2147483647") == 2_147_483_647)
        #expect(CacheControl.deltaSeconds("2147483648") == 1 << 31)
        #expect(CacheControl.deltaSeconds(String(repeating: "9", count: 100_000)) == 1 << 31)
        for invalid in ["", "-1", "+1", "1e9", "1.0", " 1", "1 ", "0x10", "١٢", "∞"] {
            #expect(CacheControl.deltaSeconds(invalid) == nil, "\(invalid)")
        }
        #expect(CacheControl("max-stale").seconds("max-stale") == .noArgument)
        #expect(CacheControl("max-age=\"3600\"").seconds("max-age") == .value(3600))
    }

    @Test("Several field lines read as one list, first occurrence first")
    func lines() {
        let parsed = CacheControl(lines: ["max-age=1", "no-cache, max-age=2"])
        #expect(parsed.directives.map(\.name) == ["max-age", "no-cache", "max-age"])
        #expect(parsed.seconds("max-age") == .value(1))
    }

    @Test("A huge field is parsed in one pass with output no larger than the input")
    func huge() {
        let value = String(repeating: "a=\"\\\",\", ", count: 20_000) + String(repeating: ",", count: 100_000)
        let parsed = CacheControl(value)
        #expect(parsed.directives.count == 20_000)
        let unterminated = CacheControl("x=\"" + String(repeating: "y,", count: 100_000))
        #expect(unterminated.directives.count == 1)
    }

    /// A random directive list, as a sender could write it.
    static func randomDirectives(_ random: inout SeededRandom) -> [Directive] {
        let tokenCharacters = Array("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyz")
        let argumentCharacters = Array("abc 0123,;=\"\\\t/é€")
        return (0..<Int.random(in: 0..<6, using: &random)).map { _ in
            let name = String((0...Int.random(in: 0..<8, using: &random)).map { _ in tokenCharacters[Int.random(in: 0..<tokenCharacters.count, using: &random)] })
            switch Int.random(in: 0..<3, using: &random) {
            case 0: return Directive(name: name)
            case 1:
                let token = String((0...Int.random(in: 0..<6, using: &random)).map { _ in tokenCharacters[Int.random(in: 0..<tokenCharacters.count, using: &random)] })
                return Directive(name: name, argument: token)
            default:
                let text = String((0..<Int.random(in: 0..<8, using: &random)).map { _ in argumentCharacters[Int.random(in: 0..<argumentCharacters.count, using: &random)] })
                return Directive(name: name, argument: text)
            }
        }
    }

    /// The directives written with random spacing, empty elements and letter case.
    static func written(_ directives: [Directive], _ random: inout SeededRandom) -> String {
        let spaces = ["", " ", "\t", "  "]
        return directives.map { directive -> String in
            var text = directive.description
            let nameEnd = text.firstIndex(of: "=") ?? text.endIndex
            if Int.random(in: 0..<2, using: &random) == 0 { text = text[..<nameEnd].uppercased() + text[nameEnd...] }
            return spaces[Int.random(in: 0..<4, using: &random)] + text + spaces[Int.random(in: 0..<4, using: &random)] + (Int.random(in: 0..<4, using: &random) == 0 ? ", " : "")
        }.joined(separator: ",")
    }

    @Test("Property: what a sender writes, in any spacing and case, parses back to the same directives (10,000 lists)")
    func roundTrip() {
        var random = SeededRandom(seed: 26)
        for _ in 0..<10_000 {
            let directives = Self.randomDirectives(&random)
            let text = Self.written(directives, &random)
            #expect(CacheControl(text).directives == directives, "\(text)")
            #expect(CacheControl(CacheControl(text).rendered).directives == directives)
        }
    }

    @Test("Property: splitting a list into field lines at commas outside quoted strings changes nothing")
    func splitIntoLines() {
        var random = SeededRandom(seed: 9111)
        for _ in 0..<2_000 {
            let directives = Self.randomDirectives(&random)
            let lines = directives.map(\.description)
            #expect(CacheControl(lines: lines).directives == directives)
            #expect(CacheControl(lines.joined(separator: ", ")).directives == directives)
        }
    }
}
