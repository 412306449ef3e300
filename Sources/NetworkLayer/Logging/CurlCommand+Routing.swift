import Foundation

extension CurlCommand {
    /// The flags that send curl where the request goes: the provider's Unix socket, or the
    /// proxy (its password redacted unless `redactingSecrets` is `false`). The environment's
    /// proxy needs none: curl reads the same variables.
    static func routingArguments(_ options: TransferOptions, redactingSecrets: Bool) -> [String] {
        if let path = options.unixSocketPath { return ["--unix-socket", quote(path)] }
        var parts: [String] = []
        switch options.table.proxy {
        case .environment:
            break
        case .none:
            parts += ["--noproxy", quote("*")]
        case .http, .socks5:
            // An invalid proxy fails the request itself; the command line shows what was given.
            guard let proxy = try? options.table.proxy.curlProxy(request: "") else { break }
            parts += ["--proxy", quote(proxy.url)]
            if proxy.username != nil || proxy.password != nil {
                let user = proxy.username ?? ""
                let password = proxy.password ?? ""
                // The user name is shown, unless it is the credential itself (no password).
                let shown = password.isEmpty ? Redactor.placeholder : user + ":" + Redactor.placeholder
                parts += ["--proxy-user", quote(redactingSecrets ? shown : user + ":" + password)]
            }
            if let noProxy = proxy.noProxy { parts += ["--noproxy", quote(noProxy)] }
        }
        if let bundle = options.customCABundle, options.table.proxy != .none { parts += ["--proxy-cacert", quote(bundle.path)] }
        return parts
    }
}
