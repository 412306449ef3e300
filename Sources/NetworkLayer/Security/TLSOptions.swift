internal import CNetworkLayerCurl
import Foundation

/// A backend's own TLS rules: the versions and ciphers its connections may use and the CA
/// certificates its servers are verified with, in place of the manager's for that backend only.
///
/// The manager's pins (``NetworkManager/configurePinning(_:isEnabled:)``) are checked on top of the
/// chain these certificates verify. The options apply to the provider's origin only: a redirect
/// elsewhere uses the manager's settings.
///
/// Checked before anything is sent: a maximum below the minimum, or a cipher name OpenSSL does
/// not know, fails the request with ``NetworkError/invalidRequest(_:)``; a server that offers
/// no version or cipher allowed fails with ``NetworkError/invalidCertificate(_:)``.
public struct TLSOptions: Sendable, Hashable {
    /// The oldest TLS version a connection may use. Default ``TLSVersion/v1_2``, the library's floor.
    public var minimumVersion: TLSVersion
    /// The newest TLS version a connection may use; `nil` (the default) for the newest OpenSSL speaks.
    public var maximumVersion: TLSVersion?
    /// The ciphers allowed for TLS 1.2, as OpenSSL names them (`"ECDHE-RSA-AES256-GCM-SHA384"`);
    /// empty (the default) for OpenSSL's default list. Elements starting with `!`, `-`, `+` or `@`
    /// are OpenSSL's list operators and are passed as they are.
    public var cipherSuites: [String]
    /// The cipher suites allowed for TLS 1.3 (`"TLS_AES_256_GCM_SHA384"`); empty (the default)
    /// for OpenSSL's default suites.
    public var tls13CipherSuites: [String]
    /// A PEM file of the CA certificates this backend's servers are verified with, instead of the
    /// manager's ``NetworkManager/customCABundle`` or the system's store; `nil` (the default) keeps those.
    public var trustedCertificates: URL?
    /// Whether servers must staple a good OCSP response; `false` (the default) checks none. One
    /// stapling none or a revoked one fails with ``NetworkError/invalidCertificate(_:)`` before
    /// anything is sent; the server must send its chain, and no TLS session is resumed.
    public var requiresOCSPStapling: Bool
    /// A decision of your own on each new connection's chain, after OpenSSL verified it and the
    /// pins matched, before any byte of a request is sent: what pins cannot express (an internal
    /// CA's name constraints, a transparency log). It gets the verified chain as DER, leaf first,
    /// on a thread of its own; one that throws rejects, and one that has not answered within the
    /// connect timeout rejects too. Answer fast: libcurl cannot suspend a handshake, so the
    /// engine's thread, and every transfer of the process, waits for it. `nil`: no callback.
    public var serverTrust: (@Sendable (_ chain: [Data]) throws -> ServerTrustDecision)? {
        get { trustCallback?.evaluate }
        set { trustCallback = newValue.map(ServerTrustCallback.init) }
    }
    /// The callback with an identity: options compare equal only with the same callback.
    var trustCallback: ServerTrustCallback?

    /// Creates TLS options; every part left out keeps the library's default.
    public init(minimumVersion: TLSVersion = .v1_2, maximumVersion: TLSVersion? = nil, cipherSuites: [String] = [],
                tls13CipherSuites: [String] = [], trustedCertificates: URL? = nil) {
        self.init(minimumVersion: minimumVersion, maximumVersion: maximumVersion, cipherSuites: cipherSuites,
                  tls13CipherSuites: tls13CipherSuites, trustedCertificates: trustedCertificates, requiresOCSPStapling: false)
    }

    /// Creates TLS options that say whether servers must staple an OCSP response.
    public init(minimumVersion: TLSVersion = .v1_2, maximumVersion: TLSVersion? = nil, cipherSuites: [String] = [],
                tls13CipherSuites: [String] = [], trustedCertificates: URL? = nil, requiresOCSPStapling: Bool) {
        self.minimumVersion = minimumVersion
        self.maximumVersion = maximumVersion
        self.cipherSuites = cipherSuites
        self.tls13CipherSuites = tls13CipherSuites
        self.trustedCertificates = trustedCertificates
        self.requiresOCSPStapling = requiresOCSPStapling
    }

    /// Creates TLS options with a trust decision of your own (see ``serverTrust``).
    public init(minimumVersion: TLSVersion = .v1_2, maximumVersion: TLSVersion? = nil, cipherSuites: [String] = [],
                tls13CipherSuites: [String] = [], trustedCertificates: URL? = nil, requiresOCSPStapling: Bool = false,
                serverTrust: @escaping @Sendable (_ chain: [Data]) throws -> ServerTrustDecision) {
        self.init(minimumVersion: minimumVersion, maximumVersion: maximumVersion, cipherSuites: cipherSuites,
                  tls13CipherSuites: tls13CipherSuites, trustedCertificates: trustedCertificates,
                  requiresOCSPStapling: requiresOCSPStapling)
        self.serverTrust = serverTrust
    }

    public static func == (lhs: TLSOptions, rhs: TLSOptions) -> Bool {
        lhs.minimumVersion == rhs.minimumVersion && lhs.maximumVersion == rhs.maximumVersion && lhs.cipherSuites == rhs.cipherSuites
            && lhs.tls13CipherSuites == rhs.tls13CipherSuites && lhs.trustedCertificates == rhs.trustedCertificates
            && lhs.requiresOCSPStapling == rhs.requiresOCSPStapling && lhs.trustCallback === rhs.trustCallback
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(minimumVersion)
        hasher.combine(maximumVersion)
        hasher.combine(cipherSuites)
        hasher.combine(tls13CipherSuites)
        hasher.combine(trustedCertificates)
        hasher.combine(requiresOCSPStapling)
        hasher.combine(trustCallback.map(ObjectIdentifier.init))
    }
}

/// What a ``TLSOptions/serverTrust`` callback answers for a chain.
public enum ServerTrustDecision: Sendable, Hashable {
    case accept
    /// The connection is refused before anything is sent; `reason` goes into the error.
    case reject(reason: String)
}

/// A trust callback and the number that keeps connections it accepted apart from others.
final class ServerTrustCallback: Sendable {
    let evaluate: @Sendable ([Data]) throws -> ServerTrustDecision
    let number: Int
    private static let numbers = Protected(0)

    init(_ evaluate: @escaping @Sendable ([Data]) throws -> ServerTrustDecision) {
        self.evaluate = evaluate
        number = Self.numbers.withLock { value in
            value += 1
            return value
        }
    }
}

/// A TLS protocol version a ``TLSOptions`` allows. Versions before 1.2 are not offered: the
/// library never connects with them.
public struct TLSVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    let minor: Int

    public static let v1_2 = TLSVersion(minor: 2)
    public static let v1_3 = TLSVersion(minor: 3)

    public var description: String { "1.\(minor)" }

    public static func < (lhs: TLSVersion, rhs: TLSVersion) -> Bool { lhs.minor < rhs.minor }

    var curlMinimum: Int { minor == 3 ? Int(CURL_SSLVERSION_TLSv1_3) : Int(CURL_SSLVERSION_TLSv1_2) }
    var curlMaximum: Int { curlMinimum << 16 }
}

extension TLSOptions {
    /// Every rule, as text: what keys the responses fetched under these rules in the response cache.
    var cacheIdentity: String {
        [minimumVersion.description, maximumVersion?.description ?? "-", cipherSuites.joined(separator: ":"),
         tls13CipherSuites.joined(separator: ":"), trustedCertificates?.standardizedFileURL.path ?? "-",
         requiresOCSPStapling ? "ocsp" : "-", trustCallback.map { "trust \($0.number)" } ?? "-"].joined(separator: "\u{0}")
    }

    /// `CURLOPT_SSLVERSION`: the minimum, with the maximum in the upper half when there is one.
    var curlSSLVersion: Int { minimumVersion.curlMinimum | (maximumVersion?.curlMaximum ?? 0) }

    /// What makes these options unusable, or `nil`. Cached per value: asking OpenSSL about a
    /// cipher makes an `SSL_CTX`, and a provider returns the same options for every request.
    var problem: String? {
        // Keyed without the trust callback, which has no problem to find: the cache must not keep
        // a callback (and what it captured) alive.
        var key = self
        key.trustCallback = nil
        if let known = Self.checked.withLock({ $0[key] }) { return known }
        let found = findProblem()
        Self.checked.withLock { cache in
            if cache.count >= 64 { cache.removeAll() }  // options built per request (a new cipher each time) stay bounded
            cache[key] = .some(found)
        }
        return found
    }

    private static let checked = Protected<[TLSOptions: String?]>([:])

    private func findProblem() -> String? {
        if let maximumVersion, maximumVersion < minimumVersion {
            return "the TLS options' maximum version \(maximumVersion) is below their minimum \(minimumVersion)"
        }
        if let path = trustedCertificates?.path, !FileManager.default.isReadableFile(atPath: path) {
            return "the TLS options' trustedCertificates file \(HeaderFields.printable(path)) cannot be read"
        }
        for (names, tls13) in [(cipherSuites, false), (tls13CipherSuites, true)] {
            for name in names {
                let shown = HeaderFields.printable(name)
                let kind = tls13 ? "TLS 1.3 cipher suite" : "cipher"
                guard !name.isEmpty, name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ":") && $0 != UInt8(ascii: ",") }) else {
                    return "the \(kind) \"\(shown)\" is not a single OpenSSL name (give each name as one element, without ':' or spaces)"
                }
                if !tls13, let first = name.first, "!-+@".contains(first) { continue }
                if nl_tls_cipher_is_known(name, tls13 ? 1 : 0) != 1 {
                    return "OpenSSL knows no \(kind) named \"\(shown)\" (`openssl ciphers -v` lists the known ones)"
                }
            }
        }
        return nil
    }

    /// What the options require, for an error about a handshake they did not allow.
    var requirement: String {
        var parts = ["TLS \(minimumVersion)" + (maximumVersion.map { $0 == minimumVersion ? " only" : " to \($0)" } ?? " or later")]
        if !cipherSuites.isEmpty { parts.append("TLS 1.2 ciphers " + cipherSuites.joined(separator: ":")) }
        if !tls13CipherSuites.isEmpty { parts.append("TLS 1.3 suites " + tls13CipherSuites.joined(separator: ":")) }
        return parts.joined(separator: ", ")
    }
}
