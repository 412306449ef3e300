// Names README.md uses without declaring them, so that its code compiles as one program
// (main.swift, generated from the README by scripts/readme-check.py). Keep this file short:
// a README block that needs more than a stand-in should declare what it uses itself.

import Foundation

/// The README's signing interceptor calls an HMAC of your choice (swift-crypto's
/// `HMAC<SHA256>`, say); the library has none of its own to offer.
func hmacSHA256(key: String, _ message: String) -> String {
    "\(key.utf8.count):\(message.utf8.count)"
}
