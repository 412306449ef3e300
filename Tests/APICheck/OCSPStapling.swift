// Issue 51's stapled OCSP: a backend whose servers must staple a good OCSP response.

import Foundation
import NetworkLayer

struct Revocable: ServiceProvider {
    var host: String { "revocable.example" }
    var httpScheme: HTTPScheme { .https }
    var tls: TLSOptions? { TLSOptions(requiresOCSPStapling: true) }
}

struct RevocableInternal: ServiceProvider {
    var host: String { "revocable.internal.example" }
    var httpScheme: HTTPScheme { .https }
    var tls: TLSOptions? {
        var options = TLSOptions(minimumVersion: .v1_3, trustedCertificates: issue37CA)
        options.requiresOCSPStapling = true
        return options
    }
}
