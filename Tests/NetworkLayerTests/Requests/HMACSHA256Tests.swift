import Foundation
import Testing
import TestScheduling

/// The test support's own SHA-256 and HMAC, against the published vectors: the signing tests
/// trust it to recompute a server-received signature.
@Suite("Test support: SHA-256 and HMAC-SHA256", .sharing)
struct HMACSHA256Tests {
    @Test("SHA-256 matches the FIPS 180-4 examples", arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        (String(repeating: "a", count: 1_000_000), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
    ])
    func sha256(message: String, digest: String) {
        #expect(HMACSHA256.hex(HMACSHA256.sha256(Array(message.utf8))) == digest)
    }

    @Test("HMAC-SHA256 matches RFC 4231 test cases 1, 2, 3 and 6 (a key longer than a block)")
    func hmac() {
        #expect(HMACSHA256.hex(HMACSHA256.mac(key: [UInt8](repeating: 0x0b, count: 20), message: Array("Hi There".utf8)))
                == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        #expect(HMACSHA256.hex(key: "Jefe", message: "what do ya want for nothing?")
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(HMACSHA256.hex(HMACSHA256.mac(key: [UInt8](repeating: 0xaa, count: 20), message: [UInt8](repeating: 0xdd, count: 50)))
                == "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe")
        #expect(HMACSHA256.hex(HMACSHA256.mac(key: [UInt8](repeating: 0xaa, count: 131),
                                              message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)))
                == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }
}
