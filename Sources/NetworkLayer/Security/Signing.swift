internal import CNetworkLayerCurl
import Foundation

/// HMAC-SHA256 (RFC 2104) for interceptors that sign requests, computed by the OpenSSL the
/// library already links.
///
/// For anything beyond HMAC-SHA256 (other hashes, signatures with key pairs), use swift-crypto in
/// your own package.
public enum Signing {
    /// The HMAC-SHA256 of `message` under `key`: 32 bytes.
    ///
    /// - Throws: ``NetworkError/invalidRequest(_:)`` when OpenSSL cannot compute it (no SHA-256,
    ///   a key over 2 GB); from `adapt(_:)`, it fails the request before anything is sent.
    public static func hmacSHA256(key: some DataProtocol, message: some DataProtocol) throws(NetworkError) -> Data {
        let key = Array(key), message = Array(message)
        var mac = Data(count: 32)
        let status = mac.withUnsafeMutableBytes { out in
            key.withUnsafeBytes { key in
                message.withUnsafeBytes { message in
                    nl_hmac_sha256(key.baseAddress, key.count, message.baseAddress, message.count,
                                   out.baseAddress?.assumingMemoryBound(to: UInt8.self))
                }
            }
        }
        guard status == 1 else {
            throw .invalidRequest(.init(reason: "OpenSSL could not compute an HMAC-SHA256 (a key of \(key.count) bytes)"))
        }
        return mac
    }

    /// The HMAC-SHA256 of `message` under `key`, both taken as UTF-8: 32 bytes. Throws as the
    /// byte form does.
    public static func hmacSHA256(key: String, message: String) throws(NetworkError) -> Data {
        try hmacSHA256(key: Array(key.utf8), message: Array(message.utf8))
    }

    /// `bytes` as lowercase hexadecimal, two digits a byte (what most signature headers carry).
    public static func hex(_ bytes: some DataProtocol) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
