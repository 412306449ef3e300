// Issue 37's block: per-backend TLS, the authentication schemes libcurl speaks, DNS and
// connecting, resumable downloads, stream body factories, HAR.

import Foundation
import NetworkLayer

let issue37CA = URL(fileURLWithPath: "/etc/ssl/internal-ca.pem")

struct Internal: ServiceProvider {
    var host: String { "internal.example" }
    var httpScheme: HTTPScheme { .https }
    var tls: TLSOptions? { TLSOptions(minimumVersion: .v1_3, trustedCertificates: issue37CA) }
    var ipFamily: IPFamily? { .ipv6Only }
    var dnsCacheTimeout: Duration? { .seconds(30) }
    var happyEyeballsTimeout: Duration? { .milliseconds(100) }
    var networkInterface: String? { "eth1" }
}

struct Partner: ServiceProvider {
    var host: String { "partner.example" }
    var httpScheme: HTTPScheme { .https }
    var tls: TLSOptions? {
        TLSOptions(minimumVersion: .v1_2, maximumVersion: .v1_3, cipherSuites: ["ECDHE-RSA-AES256-GCM-SHA384"],
                   tls13CipherSuites: ["TLS_AES_256_GCM_SHA384"], trustedCertificates: nil)
    }
    var authentication: Authentication? { .digest(user: "u", password: "p") }
}

struct Store: ServiceProvider {
    let id = "AKID"
    let secret = "secret"
    var host: String { "s3.eu-west-1.amazonaws.com" }
    var httpScheme: HTTPScheme { .https }
    var authentication: Authentication? {
        .awsSigV4(accessKeyID: id, secretAccessKey: secret, sessionToken: nil, region: "eu-west-1", service: "s3")
    }
}

final class Issue37Download: BaseRequest<DownloadedFile> {
    init(to destination: URL) {
        super.init(serviceProvider: Store(), endpoint: "/bucket/archive.tar")
        downloadDestination = destination
    }
}

final class Issue37Upload: BaseRequest<EmptyResponse> {
    init(size: Int) {
        super.init(serviceProvider: Store(), endpoint: "/bucket/upload")
        httpMethod = .put
        body = .stream(length: size) { makeChunks() }                 // a factory: a 307/308 or a retry sends it again
        body = .stream(length: nil, contentType: "text/csv") { makeChunks() }
    }
}

func makeChunks() -> AsyncStream<Data> {
    AsyncStream { $0.finish() }
}

func checkIssue37API(destination: URL) async throws {
    let schemes: [Authentication] = [.digest(user: "u", password: "p"), .ntlm(user: "DOMAIN\\u", password: "p"), .negotiate,
                                     .awsSigV4(accessKeyID: "id", secretAccessKey: "secret", sessionToken: nil,
                                               region: "eu-west-1", service: "s3")]
    _ = schemes
    let versions: [TLSVersion] = [.v1_2, .v1_3]
    _ = versions.sorted().map(\.description)
    Net.ipFamily = .ipv6Only                                           // .any (default), .ipv4Only; also per provider
    Net.ipFamily = .any
    Net.ipFamily = .ipv4Only
    Net.dnsCacheTimeout = .seconds(60); Net.happyEyeballsTimeout = .milliseconds(200); Net.networkInterface = "eth1"

    let download = Issue37Download(to: destination)
    var resumeData: ResumeData?
    do { _ = try await Net.perform(download) } catch { resumeData = error.resumeData }   // a cancelled or failed download
    _ = try await Net.perform(download, resumingFrom: resumeData)      // Range + If-Range; a changed resource starts over
    if let resumeData {
        let saved: Data = try JSONEncoder().encode(resumeData)        // Codable: survives a restart
        let read = try JSONDecoder().decode(ResumeData.self, from: saved)
        _ = (read.url, read.validator, read.offset, read.partialFile, read.destination)
        read.discard()
    }
    let context = NetworkError.Context()
    _ = context.resumeData

    Net.recordsTraffic = true                                          // off by default; bounded like Net.mocks.requests
    let har: Data = try Net.recordedTraffic.har()                      // HAR 1.2 of what was recorded, secrets redacted
    _ = (har, Net.recordedTraffic.count, RecordedTraffic.entryLimit, RecordedTraffic.bodyLimit, RecordedTraffic.totalBodyLimit)
    Net.recordedTraffic.removeAll()
}
