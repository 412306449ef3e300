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
    /// given up after a few rounds with ``NetworkError/unauthorizedAccess(_:)``.
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
    /// header of the request carries as such.
    var hiddenValues: [String] {
        switch kind {
        case .challenge(_, let user, let password): [user, password]
        case .awsSigV4(let signer): [signer.accessKeyID, signer.secretAccessKey] + (signer.sessionToken.map { [$0] } ?? [])
        default: []
        }
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
