#if canImport(Glibc)
import Glibc
#endif

/// The command line every benchmark client accepts, so the runner drives them all the same way.
///
///     --url URL            what to fetch (required)
///     --requests N         how many requests in all (default 1)
///     --concurrency C      how many in flight at once (default 1)
///     --decode             decode each body as a JSON array of ``Item``
///     --decode-object      decode each body as one ``SmallObject`` (the small GETs with a Decodable)
///     --output FILE        write the body to FILE instead of keeping it (the download scenario)
///     --stream             read the body as a stream, counting each chunk's bytes without keeping them
///     --events             read the body as a stream of server-sent events (`text/event-stream`), counting
///                          them; `--expect-items` is then the event count, `--expect-data` their data's size
///     --borrowed           NetworkLayer only, with --events: read them through `forEachEvent`, as views of
///                          the bytes they arrived in, counting them and their data's size without making strings
///     --cacert FILE        trust the CA certificates in this PEM file (HTTPS)
///     --http2              ask for HTTP/2 (HTTPS); clients that negotiate it anyway ignore it
///     --label NAME         the scenario label printed in the result line (default "adhoc")
///     --expect-bytes N     the body size each response must have; a response of another size fails
///     --expect-items N     with --decode: the number of items each decoded array must have;
///                          with --events: the number of events the stream must have
///     --expect-data N      with --events: the total UTF-8 bytes of the events' `data` fields (a checksum)
///     --observe            NetworkLayer only: every call through TracingMiddleware and MetricsMiddleware, with the
///                          no-op tracer and metrics backend (nothing bootstrapped): what the middleware itself costs
///     --cache KIND         NetworkLayer only: a response cache, `memory` or `disk` (scenario 8); one request
///                          primes it before the clock starts, and every timed request must be a hit
///     --transport KIND     bench-openapi only: the generated client's transport, `networklayer`, `ahc` or `urlsession`
///     --step NAME          NetworkLayer only, repeatable: one built-in step on for every request (``Options/stepNames``),
///                          set up as a user would; `make instructions INSTRUCTIONS_ARGS="--steps"` measures each
public struct Options: Sendable {
    public var url = ""
    public var requests = 1
    public var concurrency = 1
    public var decode = false
    public var decodeObject = false
    public var engineExecutor = false
    public var observe = false
    public var output: String?
    public var stream = false
    public var events = false
    public var borrowed = false
    public var cacert: String?
    public var http2 = false
    public var label = "adhoc"
    public var expectBytes: Int?
    public var expectItems: Int?
    public var expectData: Int?
    public var cache: String?
    public var transport = "networklayer"
    public var steps: Set<String> = []

    /// What `--step` accepts (bench-networklayer's main.swift switches each on).
    public static let stepNames = ["limit", "adaptive", "breaker", "hedging", "events", "middleware",
                                   "network-middleware", "retry", "log", "log-entries", "sigv4"]

    /// Parses `CommandLine.arguments`; prints the usage and exits with status 2 when they are wrong.
    public static func parse(_ arguments: [String] = CommandLine.arguments) -> Options {
        var options = Options()
        var rest = arguments.dropFirst()
        func value(_ flag: String) -> String {
            guard let value = rest.popFirst() else { usage("\(flag) needs a value") }
            return value
        }
        func number(_ flag: String) -> Int {
            guard let number = Int(value(flag)), number > 0 else { usage("\(flag) needs a positive integer") }
            return number
        }
        while let flag = rest.popFirst() {
            switch flag {
            case "--url": options.url = value(flag)
            case "--requests": options.requests = number(flag)
            case "--concurrency": options.concurrency = number(flag)
            case "--decode": options.decode = true
            case "--decode-object": options.decodeObject = true
            case "--engine-executor": options.engineExecutor = true
            case "--observe": options.observe = true
            case "--output": options.output = value(flag)
            case "--stream": options.stream = true
            case "--events": options.events = true
            case "--borrowed": options.borrowed = true
            case "--cacert": options.cacert = value(flag)
            case "--http2": options.http2 = true
            case "--label": options.label = value(flag)
            case "--expect-bytes": options.expectBytes = number(flag)
            case "--expect-items": options.expectItems = number(flag)
            case "--expect-data": options.expectData = number(flag)
            case "--cache":
                options.cache = value(flag)
                if options.cache != "memory" && options.cache != "disk" { usage("--cache is memory or disk") }
            case "--transport":
                options.transport = value(flag)
                if !["networklayer", "ahc", "urlsession"].contains(options.transport) {
                    usage("--transport is networklayer, ahc or urlsession")
                }
            case "--step":
                let name = value(flag)
                if !stepNames.contains(name) { usage("--step is one of \(stepNames.joined(separator: ", "))") }
                options.steps.insert(name)
            default: usage("unknown argument \(flag)")
            }
        }
        if options.url.isEmpty { usage("--url is required") }
        options.concurrency = min(options.concurrency, options.requests)
        return options
    }

    private static func usage(_ problem: String) -> Never {
        let text = """
            error: \(problem)
            usage: \(CommandLine.arguments.first ?? "bench") --url URL [--requests N] [--concurrency C] [--decode]
                   [--decode-object] [--output FILE] [--stream] [--events] [--borrowed] [--cacert FILE] [--http2] [--label NAME]
                   [--expect-bytes N] [--expect-items N] [--expect-data N] [--cache memory|disk]
                   [--transport networklayer|ahc|urlsession] [--step NAME]...

            """
        printError(text)
        exit(2)
    }
}
