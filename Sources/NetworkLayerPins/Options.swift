import Foundation

let usage = """
    usage: networklayer-pins <https-url> [--ca <PEM bundle>] [--hosts <pattern>]... [--check <pin>]...
           networklayer-pins --file <certificate.pem|.der> [--hosts <pattern>]... [--check <pin>]...
    Lists the verified chain (or the file's certificates) with each certificate's pin and suggests a
    PinningRule with a backup pin. With --check: "would pass" (exit 0) or "would fail" (exit 1).
    Bad input exits 2.
    """

/// Input the tool cannot work with: one line on standard error, exit 2.
struct BadInput: Error {
    let message: String
}

/// The command line, checked before anything is read or connected.
struct Options {
    enum Source {
        case server(URL)
        case file(URL)
    }

    var source: Source
    var trustedCertificates: URL?
    var checks: [String] = []
    var hosts: [String] = []

    init(_ arguments: some Collection<String>) throws(BadInput) {
        var rest = arguments[...]
        var url: URL?
        var file: URL?
        var trusted: URL?
        while let argument = rest.popFirst() {
            switch argument {
            case "--ca", "--check", "--hosts", "--file":
                guard let value = rest.popFirst() else { throw BadInput(message: "\(argument) needs a value") }
                switch argument {
                case "--ca": trusted = try Self.existingFile(value, for: argument)
                case "--file": file = try Self.existingFile(value, for: argument)
                case "--check": checks.append(value)
                default: hosts.append(value)
                }
            default:
                guard !argument.hasPrefix("-") else { throw BadInput(message: "unknown option \(argument) (see networklayer-pins --help)") }
                guard url == nil else { throw BadInput(message: "one URL at a time: \(argument) is a second one") }
                url = try Self.httpsURL(argument)
            }
        }
        switch (url, file) {
        case (let url?, nil): source = .server(url)
        case (nil, let file?):
            guard trusted == nil else { throw BadInput(message: "--ca is for a server's chain; --file reads the file's certificates as they are") }
            source = .file(file)
        case (.some, .some): throw BadInput(message: "give a URL or --file, not both")
        case (nil, nil): throw BadInput(message: "give an https URL or --file <certificate>")
        }
        trustedCertificates = trusted
    }

    /// `api.example.com` is read as `https://api.example.com`; any other scheme is refused.
    static func httpsURL(_ text: String) throws(BadInput) -> URL {
        let spelled = text.contains("://") ? text : "https://" + text
        guard let url = URL(string: spelled), let scheme = url.scheme?.lowercased() else {
            throw BadInput(message: "\(text) is not a URL")
        }
        guard scheme == "https" else {
            throw BadInput(message: "\(text) is not an https URL: only a TLS server presents a certificate chain")
        }
        guard let host = url.host, !host.isEmpty else { throw BadInput(message: "\(text) has no host") }
        return url
    }

    static func existingFile(_ path: String, for option: String) throws(BadInput) -> URL {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw BadInput(message: "\(option) \(path): no such file")
        }
        return URL(fileURLWithPath: path)
    }
}
