import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// The SHA-256 the response cache keys and checks its entries with (OpenSSL's), against the
/// FIPS 180-4 vectors and the plain-Swift reference of the request-signing tests.
@Suite("SHA-256 digests", .sharing)
struct SHA256DigestTests {
    @Test("FIPS 180-4 vectors")
    func vectors() {
        #expect(SHA256Digest.of([UInt8]())?.hex == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256Digest.of(Array("abc".utf8))?.hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256Digest.of(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))?.hex
                    == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(SHA256Digest.of(Data(repeating: UInt8(ascii: "a"), count: 1_000_000))?.hex
                    == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test("The same digest as the plain-Swift reference for random inputs; bytes and hex read back")
    func reference() throws {
        var random = SeededRandom(seed: 256)
        for length in (0..<200).map({ $0 * 7 }) {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            let digest = try #require(SHA256Digest.of(bytes))
            #expect(digest.bytes == HMACSHA256.sha256(bytes))
            #expect(SHA256Digest(bytes: digest.bytes) == digest)
            #expect(digest.hex.count == 64)
        }
        #expect(SHA256Digest(bytes: [UInt8](repeating: 0, count: 31)) == nil)
    }
}
