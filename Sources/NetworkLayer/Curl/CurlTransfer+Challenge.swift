internal import CNetworkLayerCurl
import Foundation

/// Digest, NTLM and Negotiate: libcurl answers a server's `401` challenge within the transfer,
/// on the same connection, for the provider's origin only (a redirect is a transfer of its own).
extension CurlTransfer {
    /// The most `401`s one transfer answers: NTLM's handshake takes two, Digest one (a second
    /// for a stale nonce). libcurl 7.88 itself answers a server that marks every nonce stale forever.
    static let maximumChallenges = 4

    func configureChallenge(_ challenge: (scheme: Authentication.ChallengeScheme, user: String, password: String)) throws(NetworkError) {
        if let missing = Self.missingFeature(for: challenge.scheme, features: Self.features) {
            throw .invalidRequest(.init(request: plan.redactedDescription, reason: missing))
        }
        // CURLAUTH_DIGEST, CURLAUTH_NEGOTIATE, CURLAUTH_NTLM: curl.h's macros carry casts Swift does not import.
        let mask = switch challenge.scheme {
        case .digest: 1 << 1
        case .negotiate: 1 << 2
        case .ntlm: 1 << 3
        }
        try handle.set(CURLOPT_HTTPAUTH, mask)
        // Negotiate takes its credentials from the Kerberos cache; libcurl wants a (blank) user set.
        try handle.set(CURLOPT_USERNAME, challenge.user)
        try handle.set(CURLOPT_PASSWORD, challenge.password)
    }

    /// This libcurl's feature bits (`curl -V` lists them by name).
    static let features = Int(curl_version_info(CURLVERSION_TENTH)?.pointee.features ?? 0)

    /// Why `scheme` cannot be used with a libcurl of `features`, or `nil`.
    static func missingFeature(for scheme: Authentication.ChallengeScheme, features: Int) -> String? {
        let (bit, name) = switch scheme {
        case .digest: (0, "")
        case .ntlm: (Int(CURL_VERSION_NTLM), "NTLM")
        case .negotiate: (Int(CURL_VERSION_SPNEGO), "SPNEGO (Negotiate)")
        }
        guard bit != 0, features & bit == 0 else { return nil }
        return "the libcurl this process uses was built without \(name), so .\(scheme) authentication cannot be answered; "
            + "`curl -V` lists its features (install a libcurl with GSS-API for Negotiate)"
    }

    /// Counts a `401` at the end of a header block; `false` to stop a server that keeps answering one.
    func challengeHeadersComplete() -> Bool {
        guard handle.long(CURLINFO_RESPONSE_CODE) == 401 else { return true }
        challengesAnswered += 1
        return challengesAnswered <= Self.maximumChallenges
    }

    /// The error for a transfer stopped by ``challengeHeadersComplete()``, else `nil`.
    func challengeLoopFailure() -> NetworkError? {
        guard let challenge, challengesAnswered > Self.maximumChallenges else { return nil }
        return .unauthorizedAccess(.init(request: plan.redactedDescription,
                                         reason: "the server answered \(challengesAnswered) \(challenge) authentication attempts in a row "
                                             + "with 401 (a nonce it calls stale each time, or a challenge that never ends); gave up"))
    }
}
