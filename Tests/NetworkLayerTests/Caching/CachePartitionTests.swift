import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// Who a cached response answers, against a real HTTPS server asking for (optional) client
/// certificates: the identity a request presents and the TLS rules it is checked under key the
/// response cache, so that a stored response never answers another client, nor stands in for a
/// check of the server that the request would have failed.
@Suite("The response cache's partitions: client certificates and TLS rules", .sharing)
struct CachePartitionTests {
    @Test("A response cached for one client certificate answers that certificate's requests only: never another's, or none's")
    func cachedPerCertificate() async throws {
        let files = try await ClientCertificateFiles.shared()
        try await withMTLSServer(files, verify: "optional") { server in
            let net = makeMTLSManager(files)
            net.cache = .memory(limit: 1 << 20)
            let path = "/whoami?max-age=60"
            let first = try await net.perform(TestRequest<WhoAmI>(server.provider(files.clientA), path))
            #expect(first.subject == "client-a")
            #expect(try await net.perform(TestRequest<WhoAmI>(server.provider(files.clientB), path)).subject == "client-b")
            #expect(try await net.perform(TestRequest<WhoAmI>(server.provider(nil), path)).subject == nil)
            // The same certificate as PKCS#12: a client of its own to the cache (the fingerprint covers the form), the same to the server.
            let pkcs12 = ClientCertificate.pkcs12(files.url("client.p12"), password: files.password)
            #expect(try await net.perform(TestRequest<WhoAmI>(server.provider(pkcs12), path)).subject == "client-a")
            #expect(try await net.perform(TestRequest<WhoAmI>(server.provider(files.clientA), path)) == first)
        }
    }

    @Test("A response to a request presenting a client certificate stays in memory: on disk only when the provider opts in")
    func certificateResponsesStayOffDisk() async throws {
        let files = try await ClientCertificateFiles.shared()
        try await withMTLSServer(files, verify: "optional") { server in
            let directory = temporaryCacheDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let net = makeMTLSManager(files)
            net.cache = .disk(directory: directory, limit: 1 << 20)
            let first = try await net.perform(TestRequest<WhoAmI>(server.provider(files.clientA), "/whoami?max-age=60"))
            #expect(first.subject == "client-a")
            #expect(try await net.perform(TestRequest<WhoAmI>(server.provider(files.clientA), "/whoami?max-age=60")) == first,
                    "the second request was not answered from the cache")
            // The same response with the provider's opt-in: written to disk, and the only file there.
            var optedIn = server.provider(files.clientA)
            optedIn.cachesAuthorizedResponsesOnDisk = true
            let stored = try await net.perform(TestRequest<WhoAmI>(optedIn, "/whoami?max-age=61"))
            #expect(stored.subject == "client-a")
            var entries: [String] = []
            for _ in 0..<40 {
                entries = try diskEntryFiles(directory)
                if !entries.isEmpty { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(entries.count == 1, "\(entries): the response without the opt-in reached the disk, or the opted-in one did not")
        }
    }

    @Test("A response cached under a provider's own trust never answers a request under another: that request checks the server itself")
    func cachedPerTLSRules() async throws {
        let files = try await ClientCertificateFiles.shared()
        try await withMTLSServer(files, verify: "optional") { server in
            let net = makeManager()  // trusts the system's store only, which never signed the test server
            net.cache = .memory(limit: 1 << 20)
            var trusting = server.provider(nil)
            trusting.tls = TLSOptions(trustedCertificates: files.url("ca.pem"))
            let path = "/whoami?max-age=60"
            let first = try await net.perform(TestRequest<WhoAmI>(trusting, path))
            #expect(first.subject == nil)
            let untrusting = await networkError { try await net.perform(TestRequest<WhoAmI>(server.provider(nil), path)) }
            guard case .invalidCertificate = untrusting else {
                Issue.record("a request under the system's trust got \(String(describing: untrusting))")
                return
            }
            var stricter = trusting
            stricter.tls?.minimumVersion = .v1_3
            #expect(try await net.perform(TestRequest<WhoAmI>(stricter, path)) != first, "TLS 1.3 only: its own answer")
            #expect(try await net.perform(TestRequest<WhoAmI>(trusting, path)) == first, "the same rules: the cached answer")
        }
    }
}
