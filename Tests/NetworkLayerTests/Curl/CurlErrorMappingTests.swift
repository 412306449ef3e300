import CNetworkLayerCurl
import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// The one place a libcurl result code becomes a ``NetworkError``: what the transfer observed
/// (``CurlErrorMapping/Facts``) decides between errors the code alone cannot tell apart. The
/// live paths to each are in ``TransportErrorTests``, ``PinningTests``, ``TransferTests`` and the
/// reliability suites; these cases pin down the precedence and the texts the Reliability article quotes.
@Suite("libcurl result codes to NetworkError", .sharing)
struct CurlErrorMappingTests {
    static func request(timeout: TimeInterval = 2.5) throws -> PreparedRequest {
        let request = TestRequest<Data>(TestProvider(host: "127.0.0.1", httpScheme: .http, port: 9), "/x", timeout: timeout)
        return try request.resolved().prepare(providerHeaders: [:], credentials: nil)
    }

    static func map(_ code: CURLcode, _ facts: CurlErrorMapping.Facts = .init(), message: String = "libcurl says so") throws -> NetworkError {
        CurlErrorMapping.error(for: code, message: message, facts: facts, plan: TransferPlan(try request()))
    }

    @Test("A malformed response is reported as such whatever code libcurl ended with")
    func malformedFirst() throws {
        let error = try Self.map(CURLE_WRITE_ERROR, .init(malformedResponse: "a header line holds a bare CR, LF or NUL",
                                                          maximumResponseSize: 10, exceededMaximumSize: true))
        #expect(error.caseName == "transport")
        #expect(error.context?.reason == "the server's response is malformed: a header line holds a bare CR, LF or NUL")
    }

    @Test("A failed verification with a pin mismatch names the host and the presented pins; without one it is a bad certificate")
    func pinMismatch() throws {
        let pinned = try Self.map(CURLE_PEER_FAILED_VERIFICATION,
                                  .init(pinMismatch: (host: "api.example.com", presentedPins: ["sha256/AAA=", "sha256/BBB="])))
        #expect(pinned.caseName == "invalidCertificate")
        #expect(pinned.context?.reason == "no public key in the certificate chain of api.example.com matches its pins; "
                + "the server presented sha256/AAA=, sha256/BBB=. Nothing was sent")
        #expect(pinned.curlCode == Int(CURLE_PEER_FAILED_VERIFICATION.rawValue))
        let plain = try Self.map(CURLE_PEER_FAILED_VERIFICATION)
        #expect(plain.caseName == "invalidCertificate")
        #expect(plain.context?.reason == "the server's certificate failed verification (libcurl says so)")
    }

    @Test("A body over the limit is the size error, whether libcurl saw a write error or a file-size error")
    func sizeLimit() throws {
        for code in [CURLE_WRITE_ERROR, CURLE_FILESIZE_EXCEEDED] {
            let error = try Self.map(code, .init(maximumResponseSize: 1000, exceededMaximumSize: code == CURLE_WRITE_ERROR))
            #expect(error.caseName == "transport")
            #expect(error.context?.reason == "the response body is larger than the limit of 1000 bytes (counted after decompression)")
        }
    }

    @Test("A write error on a download is the disk's failure; without one it is libcurl's error")
    func diskWrite() throws {
        let disk = try Self.map(CURLE_WRITE_ERROR, .init(diskWriteFailure: "No space left on device"))
        #expect(disk.caseName == "transport")
        #expect(disk.context?.reason == "the download could not be written to disk: No space left on device")
        let other = try Self.map(CURLE_WRITE_ERROR)
        #expect(other.context?.reason == "libcurl reported error \(CURLE_WRITE_ERROR.rawValue) (libcurl says so)")
    }

    @Test("A timeout before any connection says the server did not accept it; after, that no complete answer came")
    func timeouts() throws {
        let connecting = try Self.map(CURLE_OPERATION_TIMEDOUT, .init(connected: false))
        #expect(connecting.caseName == "timeOut")
        #expect(connecting.context?.reason == "the server did not accept the connection within the timeout of 2.5 s (libcurl says so)")
        let answering = try Self.map(CURLE_OPERATION_TIMEDOUT)
        #expect(answering.caseName == "timeOut")
        #expect(answering.context?.reason == "no complete answer within the timeout of 2.5 s (libcurl says so)")
    }

    @Test("Each code gets its case, and a code without a sentence of its own still carries libcurl's code and message",
          arguments: [(CURLE_COULDNT_RESOLVE_HOST, "reachability"), (CURLE_COULDNT_CONNECT, "reachability"),
                      (CURLE_SSL_CACERT_BADFILE, "invalidCertificate"), (CURLE_SSL_CONNECT_ERROR, "transport"),
                      (CURLE_PARTIAL_FILE, "transport"), (CURLE_GOT_NOTHING, "transport"), (CURLE_RECV_ERROR, "transport"),
                      (CURLE_URL_MALFORMAT, "invalidRequest"), (CURLE_ABORTED_BY_CALLBACK, "transport"),
                      (CURLE_SSL_PINNEDPUBKEYNOTMATCH, "transport")])
    func cases(code: CURLcode, caseName: String) throws {
        let error = try Self.map(code)
        #expect(error.caseName == caseName)
        #expect(error.curlCode == Int(code.rawValue))
        #expect(error.context?.reason?.hasSuffix("(libcurl says so)") == true)
    }
}
