import Foundation

/// A prepared request as an equivalent `curl` command line, to replay it in a shell.
///
/// A command that carries a secret header (any header of the request's
/// ``PreparedRequest/secrets``, or one that looks secret) has no `--location`: curl would send
/// custom headers, API keys included, to whatever host a redirect names (it drops only
/// `Authorization` and `Cookie`, and only since 7.83). It ends with a comment saying so instead,
/// and a redirect shows as the 3xx response itself. A command without secret headers follows
/// redirects, as the library does.
enum CurlCommand {
    /// The comment a command with secret headers ends with, in place of `--location`.
    static let noLocationComment = "# no --location: curl would send the secret headers to any host a redirect names"

    /// Bodies up to this size are written inline; larger ones as a placeholder file name.
    static let inlineBodyLimit = 16 * 1024

    /// The command that sends what `plan` sends: the same request line (`--path-as-is` when the path
    /// goes as given), headers (the library's `User-Agent` and `Accept-Encoding` included, and those
    /// it suppresses as `Name:`), body, redirects, TLS, timeout, routing and limits. `-sS`: quiet,
    /// but errors still shown.
    static func render(_ plan: TransferPlan, redactingSecrets: Bool) -> String {
        let origin = plan.origin
        var parts = ["curl", "-sS"]
        let redactor = origin.redactor
        switch plan.methodForm {
        case .get: break
        case .head: parts.append("--head")
        case .post: if plan.body == nil { parts += ["-X", "POST"] }
        case .custom(let name): parts += ["-X", quote(name)]
        }
        // A secret value is scrubbed wherever the command holds it (a password in the URL's path).
        let secrets = redactingSecrets ? origin.secretValues : []
        parts.append(quote(redactingSecrets ? Redactor.scrub(redactor.redact(url: origin.url), secrets: secrets) : origin.url.absoluteString))
        if plan.options.table.sendsPathAsIs { parts.append("--path-as-is") }
        for (name, value) in plan.headerLines {
            guard let value else {
                parts += ["-H", quote("\(name):")]  // not sent
                continue
            }
            let shown = redactingSecrets ? Redactor.scrub(redactor.redact(header: name, value: value), secrets: secrets) : value
            parts += ["-H", quote(shown.isEmpty ? "\(name);" : "\(name): \(shown)")]
        }
        if let challenge = plan.challenge {
            // A user name is shown, unless it is the credential itself (no password).
            let user = challenge.password.isEmpty ? Redactor.placeholder : challenge.user
            let credentials = challenge.scheme == .negotiate ? ":" : redactingSecrets ? "\(user):\(Redactor.placeholder)"
                : "\(challenge.user):\(challenge.password)"
            parts += ["--\(challenge.scheme)", "-u", quote(credentials)]
        }
        parts += bodyArguments(plan.body, redactor: redactor, redactingSecrets: redactingSecrets, secrets: secrets)
        // A stream shows its body as it arrives; a decoded body is asked for compressed (the
        // plan's Accept-Encoding) and decoded as libcurl does.
        if plan.streaming { parts.append("--no-buffer") }
        if plan.decodesBody { parts.append("--compressed") }
        parts += redirectArguments(plan)
        parts += ["--proto", "=http,https"] + tlsArguments(plan.options)
        switch plan.options.table.httpVersion {
        case .automatic: break  // curl's own default: HTTP/2 over TLS when offered
        case .http1_1: parts.append("--http1.1")
        case .http2PriorKnowledge: parts.append("--http2-prior-knowledge")
        }
        parts += keepAliveArguments(plan.options.table.keepAlive)
        if let milliseconds = plan.connectTimeoutMilliseconds { parts += ["--connect-timeout", (Double(milliseconds) / 1000).compactText] }
        if let seconds = plan.idleSeconds { parts += ["--speed-limit", "1", "--speed-time", String(seconds)] }
        for entry in plan.options.hostOverrides?.entries ?? [] { parts += ["--connect-to", quote(entry.line)] }
        parts += connectingArguments(plan.options.table, redactingSecrets: redactingSecrets)
        if let seconds = plan.streamSilenceSeconds {
            // A stream's timeout bounds a silence: less than 1 byte per second for that many seconds.
            parts += ["--speed-limit", "1", "--speed-time", String(seconds)]
        } else if plan.timeoutMilliseconds > 0 {
            parts += ["--max-time", plan.timeout.compactText]
        }
        if let bundle = plan.options.trustedCertificates { parts += ["--cacert", quote(bundle.path)] }
        parts += clientCertificateArguments(plan.options)
        parts += routingArguments(plan.options, redactingSecrets: redactingSecrets)
        if plan.maximumFileSize > 0 { parts += ["--max-filesize", String(plan.maximumFileSize)] }
        if let destination = plan.downloadDestination { parts += ["--output", quote(destination.path)] }
        // Comments (`# …`) only work at the end of a line: move them there, joined into one.
        let comments = parts.filter { $0.hasPrefix("# ") }.map { $0.dropFirst(2) }
        let command = parts.filter { !$0.hasPrefix("# ") }.joined(separator: " ")
        return comments.isEmpty ? command : command + " # " + comments.joined(separator: "; ")
    }

    /// How curl follows redirects as the request's policy does: `--location` with the policy's
    /// maximum; nothing for `.none`. A command that carries a secret header, or whose policy curl
    /// cannot express (`.sameOrigin`, `.custom`), does not follow them and says why.
    /// TCP keepalive as curl's tool spells it: nothing for its own default (60 s, 60 s), else
    /// `--keepalive-time` (which sets the idle time and the interval alike), or `--no-keepalive`.
    private static func keepAliveArguments(_ keepAlive: KeepAlive?) -> [String] {
        guard let keepAlive else { return ["--no-keepalive"] }
        guard keepAlive.idleSeconds != 60 || keepAlive.intervalSeconds != 60 else { return [] }
        var parts = ["--keepalive-time", String(keepAlive.idleSeconds)]
        if keepAlive.intervalSeconds != keepAlive.idleSeconds {
            parts.append("# probes every \(keepAlive.intervalSeconds) s after the first (curl's tool sets one time for both)")
        }
        return parts
    }

    private static func redirectArguments(_ plan: TransferPlan) -> [String] {
        let maximum: Int
        switch plan.redirectPolicy {
        case .none: return []
        case .sameOrigin, .custom: return ["# no --location: the request's redirect policy decides each hop, which curl cannot"]
        case .follow: maximum = plan.redirectPolicy.limit
        }
        let redactor = plan.origin.redactor
        if plan.headers.contains(where: { redactor.isSecretHeader($0.name) }) { return [noLocationComment] }
        return ["--location", "--max-redirs", String(maximum), "--proto-redir", "=http,https"]
    }

    /// The body as curl sends it: inline bytes (or a file named for them when they are binary or
    /// large), a file, a multipart form, or standard input for a sequence.
    private static func bodyArguments(_ body: PreparedBody?, redactor: Redactor, redactingSecrets: Bool,
                                      secrets: [String]) -> [String] {
        var parts: [String] = []
        switch body {
        case .bytes(let data)?:
            if data.count <= inlineBodyLimit, var text = String(data: data, encoding: .utf8),
               !text.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\n" && $0 != "\t" && $0 != "\r" }) {
                if redactingSecrets { text = Redactor.scrub(text, secrets: secrets) }
                parts += ["--data-binary", quote(text)]
            } else {
                parts += ["--data-binary", quote("@body.bin"), "# the \(data.count)-byte body, saved as body.bin"]
            }
        case .file(let url, _)?:
            parts += ["--data-binary", quote("@" + url.path)]
        case .stream(let upload)?:
            // A sequence cannot be written down: the command reads the body from its stdin.
            parts += ["--data-binary", "@-", "# the body is produced by a sequence: pipe "
                        + (upload.length.map { "its \($0) bytes" } ?? "it") + " into this command"]
        case .multipart(let form)?:
            for part in form.parts {
                switch part {
                case .text(let name, let value):
                    let shown = redactingSecrets && redactor.isSecretField(name) ? Redactor.placeholder : value
                    parts += ["--form-string", quote("\(name)=\(shown)")]
                case .data(let name, let data, let filename, let mimeType):
                    var spec = "\(name)=@\(filename ?? name).bin"
                    if let filename { spec += ";filename=\(filename)" }
                    if let mimeType { spec += ";type=\(mimeType)" }
                    parts += ["-F", quote(spec), "# \(data.count) bytes"]
                case .file(let name, let url, let filename, let mimeType):
                    var spec = "\(name)=@\(url.path)"
                    if let filename { spec += ";filename=\(filename)" }
                    spec += ";type=\(mimeType ?? "application/octet-stream")"
                    parts += ["-F", quote(spec)]
                }
            }
        case nil:
            break
        }
        return parts
    }

    /// The TLS versions and ciphers: the provider's ``TLSOptions``, else the library's floor.
    private static func tlsArguments(_ options: TransferOptions) -> [String] {
        guard let tls = options.tls else { return ["--tlsv1.2"] }
        var parts = ["--tlsv\(tls.minimumVersion)"]
        if let maximum = tls.maximumVersion { parts += ["--tls-max", maximum.description] }
        if !tls.cipherSuites.isEmpty { parts += ["--ciphers", quote(tls.cipherSuites.joined(separator: ":"))] }
        if !tls.tls13CipherSuites.isEmpty { parts += ["--tls13-ciphers", quote(tls.tls13CipherSuites.joined(separator: ":"))] }
        return parts
    }

    /// Single-quoted for a POSIX shell.
    static func quote(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
