import CCurl
import COpenSSL
import Foundation
import NetworkLayer

// The same HMAC from the consumer's own OpenSSL and from the library's helper.
let key = Array("key".utf8), message = Array("The quick brown fox jumps over the lazy dog".utf8)
var own = [UInt8](repeating: 0, count: 32)
var length: UInt32 = 0
_ = HMAC(EVP_sha256(), key, Int32(key.count), message, message.count, &own, &length)
let library = try Signing.hmacSHA256(key: key, message: message)
print("consumer: NetworkLayer \(NetworkLayerInfo.version) beside its own COpenSSL, CLibcurl and CCurl targets")
print("consumer: \(String(cString: consumer_curl_version()))")
print("consumer: HMAC-SHA256 from the library \(Signing.hex(library)), from its own OpenSSL \(Signing.hex(own.prefix(Int(length))))")
