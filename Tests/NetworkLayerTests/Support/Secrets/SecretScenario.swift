import Foundation
@testable import NetworkLayer

/// One random case of the secrets property test: credentials, secret names declared at random
/// places, and a redirect chain between the suite's servers, all drawn from a seed.
struct SecretScenario: CustomStringConvertible {
    /// How the request authenticates.
    enum Credential {
        case none
        case bearer(String)
        case basic(user: String, password: String)
        case apiKeyHeader(name: String, value: String)
        case apiKeyQuery(name: String, value: String)
    }

    /// Where a secret name is declared.
    enum Declaration: CaseIterable {
        case manager, provider, request
    }

    /// A header whose value is secret, declared somewhere, set by the provider or the request.
    struct DeclaredHeader {
        let name: String
        let value: String
        let declaredBy: Declaration
        let setByProvider: Bool
    }

    /// A query item whose value is secret, declared somewhere.
    struct DeclaredQueryItem {
        let name: String
        let value: String
        let declaredBy: Declaration
    }

    /// A redirect: to which server, with which status.
    struct Hop {
        let server: Int
        let status: Int
    }

    /// Where the chain ends.
    enum Ending: String, CaseIterable {
        case echo = "/echo"
        case serverError = "/status/500"
        case reflectedUnauthorized = "/reflect-headers?status=401"
    }

    /// A server that quotes a secret into its Location (at the first hop).
    enum Hostility {
        case none
        case echoQuery(String)
        case echoHeader(String)
    }

    let seed: UInt64
    let start: Int
    let credential: Credential
    let headers: [DeclaredHeader]
    let queryItems: [DeclaredQueryItem]
    let cookie: String?
    let hops: [Hop]
    let ending: Ending
    let method: HTTPMethod
    let hostility: Hostility

    /// API-key header names real services use; a random name is drawn half the time.
    static let realHeaderNames = SecretNamesTests.apiKeyHeaderNames

    init(seed: UInt64, servers: Int) {
        var random = SeededRandom(seed: seed)
        self.seed = seed
        start = Int.random(in: 0..<servers, using: &random)
        switch Int.random(in: 0..<5, using: &random) {
        case 0: credential = .none
        case 1: credential = .bearer(Self.headerValue(using: &random))
        case 2: credential = .basic(user: Self.headerValue(using: &random), password: Self.anyValue(using: &random))
        case 3: credential = .apiKeyHeader(name: Self.headerName(using: &random), value: Self.headerValue(using: &random))
        default: credential = .apiKeyQuery(name: Self.queryName(using: &random), value: Self.anyValue(using: &random))
        }
        var usedHeaders: Set<String> = ["x-trace"]
        if case .apiKeyHeader(let name, _) = credential { usedHeaders.insert(name.lowercased()) }
        var headers: [DeclaredHeader] = []
        for _ in 0..<Int.random(in: 0...2, using: &random) {
            let name = Self.headerName(using: &random)
            guard usedHeaders.insert(name.lowercased()).inserted else { continue }
            headers.append(DeclaredHeader(name: name, value: Self.headerValue(using: &random),
                                          declaredBy: Declaration.allCases.randomElement(using: &random) ?? .request,
                                          setByProvider: Bool.random(using: &random)))
        }
        self.headers = headers
        var usedQueryNames: Set<String> = []
        if case .apiKeyQuery(let name, _) = credential { usedQueryNames.insert(name.lowercased()) }
        var queryItems: [DeclaredQueryItem] = []
        if Bool.random(using: &random) {
            let name = Self.queryName(using: &random)
            if usedQueryNames.insert(name.lowercased()).inserted {
                queryItems.append(DeclaredQueryItem(name: name, value: Self.anyValue(using: &random),
                                                    declaredBy: Declaration.allCases.randomElement(using: &random) ?? .provider))
            }
        }
        self.queryItems = queryItems
        cookie = Bool.random(using: &random) ? Self.headerValue(using: &random).replacingOccurrences(of: ";", with: ":") : nil
        hops = (0..<Int.random(in: 0...3, using: &random)).map { _ in
            Hop(server: Int.random(in: 0..<servers, using: &random), status: [301, 302, 303, 307, 308].randomElement(using: &random) ?? 302)
        }
        ending = Ending.allCases.randomElement(using: &random) ?? .echo
        method = Bool.random(using: &random) ? .get : .post
        // A hostile first hop a quarter of the time, quoting a secret the request really carries.
        var quotable: [Hostility] = queryItems.map { .echoQuery($0.name) } + headers.map { .echoHeader($0.name) }
        switch credential {
        case .apiKeyQuery(let name, _): quotable.append(.echoQuery(name))
        case .apiKeyHeader(let name, _): quotable.append(.echoHeader(name))
        case .bearer, .basic: quotable.append(.echoHeader("Authorization"))
        case .none: break
        }
        hostility = !hops.isEmpty && Int.random(in: 0..<4, using: &random) == 0 ? quotable.randomElement(using: &random) ?? .none : .none
    }

    // MARK: What the test needs to know

    /// Every secret value of the case, for the leak checks (at least 4 characters each).
    var secrets: [String] {
        var values = headers.map(\.value) + queryItems.map(\.value) + (cookie.map { [$0] } ?? [])
        switch credential {
        case .none: break
        case .bearer(let token): values.append(token)
        case .basic(let user, let password): values += [password, Data("\(user):\(password)".utf8).base64EncodedString()]
        case .apiKeyHeader(_, let value), .apiKeyQuery(_, let value): values.append(value)
        }
        return values
    }

    /// Whether the first hop is refused: a Location of another origin quoting a secret.
    var refusesFirstHop: Bool {
        if case .none = hostility { return false }
        return hops.first.map { $0.server != start } ?? false
    }

    /// The path and query the server at position `index` of the chain is asked for (0: the start).
    func path(at index: Int, baseURLs: [String]) -> String {
        guard index < hops.count else { return ending.rawValue }
        let next = baseURLs[hops[index].server] + path(at: index + 1, baseURLs: baseURLs)
        var path = "/redirect-to?status=\(hops[index].status)&url=" + ParameterValue.percentEncode(next)
        if index == 0 {
            switch hostility {
            case .none: break
            case .echoQuery(let name): path += "&echo=" + ParameterValue.percentEncode(name)
            case .echoHeader(let name): path += "&echoHeader=" + ParameterValue.percentEncode(name)
            }
        }
        return path
    }

    var description: String {
        "seed \(seed) (rerun with NETWORKLAYER_SECRET_SEED=\(seed)): start \(start), \(credential), headers \(headers.map { ($0.name, $0.value, $0.declaredBy) }), "
            + "query \(queryItems.map { ($0.name, $0.value, $0.declaredBy) }), cookie \(String(describing: cookie)), "
            + "hops \(hops.map { ($0.server, $0.status) }), \(ending), \(method.rawValue), \(hostility)"
    }

    // MARK: Drawing values and names

    /// Characters that seldom occur in logs: each short value holds two, so that it cannot turn
    /// up by chance in ordinary text.
    private static let rare = Array("~^`|!$*")
    private static let printableASCII = (0x21...0x7E).compactMap { UnicodeScalar($0).map(Character.init) }
    private static let unicode: [Character] = ["é", "ß", "→", "日", "本", "😀", "Ω", "ñ", " ", "+", "&", "=", "#", "%", "/", "?", "\"", "\\",
                                               "a\u{301}"]

    /// Length 4...40, mostly 8 or more.
    private static func length(using random: inout SeededRandom) -> Int {
        Int.random(in: 0..<10, using: &random) == 0 ? Int.random(in: 4...7, using: &random) : Int.random(in: 8...40, using: &random)
    }

    /// A value a header can carry: printable ASCII, no space at either end.
    static func headerValue(using random: inout SeededRandom) -> String {
        let count = length(using: &random)
        var characters = (0..<count).map { _ in printableASCII.randomElement(using: &random) ?? "x" }
        if count >= 6 {
            for index in 1..<(count - 1) where Int.random(in: 0..<12, using: &random) == 0 { characters[index] = " " }
        }
        return withRareCharacters(characters, using: &random)
    }

    /// A value for a query item or a password: any characters, Unicode included.
    static func anyValue(using random: inout SeededRandom) -> String {
        let count = length(using: &random)
        let characters = (0..<count).map { _ in
            Bool.random(using: &random) ? (printableASCII.randomElement(using: &random) ?? "x") : (unicode.randomElement(using: &random) ?? "é")
        }
        return withRareCharacters(characters, using: &random)
    }

    private static func withRareCharacters(_ characters: [Character], using random: inout SeededRandom) -> String {
        var characters = characters
        if characters.count < 8 {
            for _ in 0..<2 { characters[Int.random(in: 0..<characters.count, using: &random)] = rare.randomElement(using: &random) ?? "~" }
        }
        return String(characters)
    }

    /// A header name: a real API-key name or a random token (`X-` and letters, digits, `-`, `_`).
    static func headerName(using random: inout SeededRandom) -> String {
        if Bool.random(using: &random), let real = realHeaderNames.randomElement(using: &random) { return real }
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        return "X-P" + String((0..<Int.random(in: 3...16, using: &random)).map { _ in alphabet.randomElement(using: &random) ?? "a" })
    }

    /// A query item name (`q` and letters, digits, `_`, `.`): never one `/redirect-to` reads.
    static func queryName(using random: inout SeededRandom) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.")
        return "q" + String((0..<Int.random(in: 2...12, using: &random)).map { _ in alphabet.randomElement(using: &random) ?? "a" })
    }
}
