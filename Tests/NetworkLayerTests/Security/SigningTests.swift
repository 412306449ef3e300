import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// `Signing`, the HMAC-SHA256 the README's signing example calls: OpenSSL's, checked against the
/// published vectors and against the test support's own implementation in plain Swift.
@Suite("Signing: HMAC-SHA256 for interceptors", .sharing)
struct SigningTests {
    @Test("It matches RFC 4231's test cases, a key longer than a block included")
    func rfc4231() throws {
        #expect(Signing.hex(try Signing.hmacSHA256(key: [UInt8](repeating: 0x0b, count: 20), message: Array("Hi There".utf8)))
                == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        #expect(Signing.hex(try Signing.hmacSHA256(key: "Jefe", message: "what do ya want for nothing?"))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(Signing.hex(try Signing.hmacSHA256(key: Data(repeating: 0xaa, count: 20), message: Data(repeating: 0xdd, count: 50)))
                == "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe")
        #expect(Signing.hex(try Signing.hmacSHA256(key: [UInt8](repeating: 0xaa, count: 131),
                                                   message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)))
                == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    @Test("An empty key or message is an HMAC like any other, 32 bytes")
    func emptyInputs() throws {
        let mac = try Signing.hmacSHA256(key: "", message: "")
        #expect(Signing.hex(mac) == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
        #expect(try Signing.hmacSHA256(key: "k", message: "").count == 32)
        #expect(Signing.hex(Data()) == "")
    }

    @Test("It agrees with an independent implementation on random keys and messages")
    func agreesWithPlainSwift() throws {
        var random = SeededRandom(seed: 38)
        for _ in 0..<200 {
            let key = (0..<Int.random(in: 0...150, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            let message = (0..<Int.random(in: 0...300, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            let expected = HMACSHA256.hex(HMACSHA256.mac(key: key, message: message))
            #expect(Signing.hex(try Signing.hmacSHA256(key: key, message: message)) == expected, "key \(key.count), message \(message.count) bytes")
        }
    }

    @Test("The String form signs the UTF-8 bytes")
    func stringsAreUTF8() throws {
        #expect(try Signing.hmacSHA256(key: "clé", message: "größe") == (try Signing.hmacSHA256(key: Array("clé".utf8), message: Array("größe".utf8))))
    }
}
