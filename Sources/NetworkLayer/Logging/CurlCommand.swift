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

    static func render(_ request: PreparedRequest, options: TransferOptions, redactingSecrets: Bool) -> String {
        var parts = ["curl"]
        let redactor = request.redactor
        switch request.method {
        case .get: if request.body != nil { parts += ["-X", "GET"] }
        case .head: parts.append("--head")
        case .post: if request.body == nil { parts += ["-X", "POST"] }
        default: parts += ["-X", request.method.rawValue]
        }
        parts.append(quote(redactingSecrets ? redactor.redact(url: request.url) : request.url.absoluteString))
        for header in request.headers {
            let value = redactingSecrets ? redactor.redact(header: header.name, value: header.value) : header.value
            parts += ["-H", quote(value.isEmpty ? "\(header.name);" : "\(header.name): \(value)")]
        }
        switch request.body {
        case .bytes(let data)?:
            if data.count <= inlineBodyLimit, var text = String(data: data, encoding: .utf8),
               !text.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\n" && $0 != "\t" && $0 != "\r" }) {
                if redactingSecrets { text = Redactor.scrub(text, secrets: redactor.secretValues(of: request)) }
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
        // A stream asks for its body as sent (no Accept-Encoding) and shows it as it arrives; its
        // timeout bounds a silence, not the whole transfer, which curl's low-speed limit says
        // (less than 1 byte per second for that many whole seconds).
        let isStream = request.snapshot.streamKind != nil
        parts.append(isStream ? "--no-buffer" : "--compressed")
        if request.headers.contains(where: { redactor.isSecretHeader($0.name) }) {
            parts += ["--proto", "=http,https", "--tlsv1.2", noLocationComment]
        } else {
            parts += ["--location", "--max-redirs", "10", "--proto", "=http,https", "--proto-redir", "=http,https", "--tlsv1.2"]
        }
        if request.timeout.isFinite, request.timeout <= PreparedRequest.timeoutCeiling {
            if isStream {
                parts += ["--speed-limit", "1", "--speed-time", String(max(1, Int(request.timeout.rounded(.up))))]
            } else {
                parts += ["--max-time", request.timeout.compactText]
            }
        }
        if let bundle = options.customCABundle { parts += ["--cacert", quote(bundle.path)] }
        parts += clientCertificateArguments(options)
        parts += routingArguments(options, redactingSecrets: redactingSecrets)
        if let limit = options.maximumResponseSize { parts += ["--max-filesize", String(limit)] }
        if let destination = request.snapshot.downloadDestination { parts += ["--output", quote(destination.path)] }
        // Comments (`# …`) only work at the end of a line: move them there, joined into one.
        let comments = parts.filter { $0.hasPrefix("# ") }.map { $0.dropFirst(2) }
        let command = parts.filter { !$0.hasPrefix("# ") }.joined(separator: " ")
        return comments.isEmpty ? command : command + " # " + comments.joined(separator: "; ")
    }

    /// Single-quoted for a POSIX shell.
    static func quote(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
