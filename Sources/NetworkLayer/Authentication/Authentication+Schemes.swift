import Foundation

extension Authentication {
    /// The schemes libcurl answers a server's `401` challenge for, within one transfer.
    enum ChallengeScheme: Sendable, CustomStringConvertible {
        case digest, ntlm, negotiate

        var description: String {
            switch self {
            case .digest: "digest"
            case .ntlm: "ntlm"
            case .negotiate: "negotiate"
            }
        }
    }

    /// HTTP Digest authentication (RFC 7616: MD5 or SHA-256, `qop=auth`), answered by libcurl on the
    /// same connection; the password itself is never sent. A server that keeps answering `401` is
    /// given up after a few rounds with ``NetworkError/unauthorizedAccess(_:)``, as is one whose
    /// challenge has no `nonce` (the error says so: no credentials can answer it).
    public static func digest(user: String, password: String) -> Authentication {
        Authentication(kind: .challenge(.digest, user: user, password: password))
    }

    /// NTLM, as Windows servers and corporate proxies ask for it, answered by libcurl over one
    /// kept-alive HTTP/1.1 connection. Write a domain user as `"DOMAIN\\user"`.
    public static func ntlm(user: String, password: String) -> Authentication {
        Authentication(kind: .challenge(.ntlm, user: user, password: password))
    }

    /// SPNEGO (Negotiate) through the system's GSS-API: Kerberos with the ticket of the process's
    /// credential cache (`KRB5CCNAME`). No password goes through the library. Without a ticket the
    /// server's `401` stands, as ``NetworkError/unauthorizedAccess(_:)``.
    public static var negotiate: Authentication {
        Authentication(kind: .challenge(.negotiate, user: "", password: ""))
    }

    /// AWS Signature Version 4: every attempt is signed as it is sent (after every interceptor), with
    /// `X-Amz-Date` and, for temporary credentials, `X-Amz-Security-Token`. A body streamed from a
    /// file, a sequence or a multipart form is signed as `UNSIGNED-PAYLOAD` (which S3 accepts over
    /// HTTPS). A region, service or credential with characters it may not hold fails the request with
    /// ``NetworkError/invalidRequest(_:)`` before anything is sent.
    public static func awsSigV4(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil,
                                region: String, service: String) -> Authentication {
        Authentication(kind: .awsSigV4(AWSSigV4(accessKeyID: accessKeyID, secretAccessKey: secretAccessKey,
                                                sessionToken: sessionToken, region: region, service: service)))
    }

    var challenge: (scheme: ChallengeScheme, user: String, password: String)? {
        if case .challenge(let scheme, let user, let password) = kind { return (scheme, user, password) }
        return nil
    }

    var sigV4: AWSSigV4? {
        if case .awsSigV4(let signer) = kind { return signer }
        return nil
    }

    /// Who is asking, for the credentials that go in no header of the request (libcurl's answer
    /// to a challenge, a SigV4 key): what the response cache and request coalescing tell callers
    /// apart by. `nil` for the others, whose headers say it.
    var callerIdentity: String? {
        switch kind {
        case .challenge(let scheme, let user, let password): "\(scheme)\u{0}\(user)\u{0}\(password)"
        case .awsSigV4(let signer):
            "aws4\u{0}\(signer.accessKeyID)\u{0}\(signer.secretAccessKey)\u{0}\(signer.region)\u{0}\(signer.service)"
        default: nil
        }
    }

    /// The credential values to scrub from any text: what libcurl or the signer uses, which no
    /// header of the request carries as such. A Basic password is one too (its header carries it
    /// only in base64), and `user:password`, whose base64 that header is. A user name is not a
    /// secret (curl and browsers show it), so it is not listed: a short one would scrub ordinary
    /// words. Without a password the user name is the credential (an API key as Stripe takes it).
    var hiddenValues: [String] {
        switch kind {
        case .basic(let user, let password): [Self.secretPart(user: user, password: password), "\(user):\(password)"]
        case .challenge(_, let user, let password): [Self.secretPart(user: user, password: password)]
        case .awsSigV4(let signer): [signer.accessKeyID, signer.secretAccessKey] + (signer.sessionToken.map { [$0] } ?? [])
        default: []
        }
    }

    /// What of a user name and password is secret: the password, or the user name when there is no password.
    static func secretPart(user: String, password: String) -> String {
        password.isEmpty ? user : password
    }

    /// Whether `values` (a 401's `WWW-Authenticate` lines) offer Digest, and no Digest challenge
    /// among them has a `nonce`. Each line holds challenges (`Scheme param=value, …`, RFC 9110
    /// §11.6.1) separated by commas outside quoted strings; linear in the text a server sent.
    static func digestChallengeLacksNonce(_ values: [String]) -> Bool {
        var offersDigest = false
        for value in values {
            var inDigest = false
            for item in itemsOutsideQuotes(value) {
                var item = item.drop { $0 == " " || $0 == "\t" }
                guard !item.isEmpty else { continue }
                // A scheme starts a challenge: a token before a space, or alone (no '=' in it).
                let space = item.firstIndex { $0 == " " || $0 == "\t" }
                let head = item[..<(space ?? item.endIndex)]
                if !head.contains("=") {
                    inDigest = head.lowercased() == "digest"
                    offersDigest = offersDigest || inDigest
                    item = item[(space ?? item.endIndex)...].drop { $0 == " " || $0 == "\t" }
                }
                guard inDigest, let equals = item.firstIndex(of: "=") else { continue }
                if item[..<equals].trimmingCharacters(in: .whitespaces).lowercased() == "nonce" { return false }
            }
        }
        return offersDigest
    }

    /// `text` split at the commas outside quoted strings (a backslash escapes the next character inside one).
    private static func itemsOutsideQuotes(_ text: String) -> [Substring] {
        var items: [Substring] = []
        var start = text.startIndex
        var quoted = false
        var escaped = false
        for index in text.indices {
            let character = text[index]
            if escaped {
                escaped = false
            } else if quoted, character == "\\" {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            } else if character == ",", !quoted {
                items.append(text[start..<index])
                start = text.index(after: index)
            }
        }
        items.append(text[start...])
        return items
    }

    /// A user name and password libcurl can send: no control character (a NUL would cut them
    /// short), and within a bound.
    static func check(_ scheme: ChallengeScheme, user: String, password: String) throws(NetworkError) {
        for (part, value) in [("user name", user), ("password", password)] {
            guard value.utf8.count <= 4096, !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw .invalidRequest(.init(reason: "the \(scheme) \(part) holds a control character or is longer than 4096 bytes"))
            }
        }
    }
}
