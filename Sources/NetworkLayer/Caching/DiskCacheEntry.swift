import Foundation

/// One stored response as a file of the disk cache:
///
/// ```
/// "NLCACHE1"                                   8 bytes
/// metadata length                              UInt32
/// metadata: URL key, partition, variant key    3 × 32 bytes (SHA-256 digests)
///           status                             UInt16
///           request time, response time        2 × Float64 (seconds since 1970)
///           Vary names                         UInt16 count, each UInt16 length + UTF-8
///           header lines                       UInt32 count, each UInt32 length + UTF-8 twice
/// body length                                  UInt64
/// body
/// SHA-256 of everything above                  32 bytes
/// ```
///
/// Integers are little-endian. Reading checks every length against the file and the digest
/// against its content, so a truncated or damaged file reads as `nil`, never as a response.
enum DiskCacheEntry {
    static let magic = Array("NLCACHE1".utf8)
    /// The most header lines and the most Vary names a file may claim.
    static let maximumLines = 10_000
    static let maximumVaryNames = CacheVary.maximumNames

    /// The file's bytes.
    static func encode(_ response: StoredResponse) -> Data? {
        var metadata = CacheBinaryWriter()
        metadata.digest(response.urlKey)
        metadata.digest(response.partition)
        metadata.digest(response.variantKey)
        metadata.u16(UInt16(clamping: response.statusCode))
        metadata.f64(response.requestTime)
        metadata.f64(response.responseTime)
        metadata.u16(UInt16(clamping: response.varyNames.count))
        for name in response.varyNames.prefix(Int(UInt16.max)) { metadata.text16(name) }
        metadata.u32(UInt32(clamping: response.headers.count))
        for line in response.headers {
            metadata.text32(line.name)
            metadata.text32(line.value)
        }
        var head = CacheBinaryWriter()
        head.raw(magic)
        head.u32(UInt32(clamping: metadata.bytes.count))
        head.raw(metadata.bytes)
        head.u64(UInt64(response.body.count))

        var file = Data(capacity: head.bytes.count + response.body.count + SHA256Digest.byteCount)
        file.append(contentsOf: head.bytes)
        file.append(response.body)
        guard let digest = SHA256Digest.of(file) else { return nil }
        file.append(contentsOf: digest.bytes)
        return file
    }

    /// The response a file holds; `nil` when it is not a whole, undamaged entry file.
    static func decode(_ file: Data) -> StoredResponse? {
        file.withUnsafeBytes { bytes -> StoredResponse? in
            guard bytes.count >= magic.count + 4 + 8 + SHA256Digest.byteCount,
                  bytes.prefix(magic.count).elementsEqual(magic) else { return nil }
            let contentCount = bytes.count - SHA256Digest.byteCount
            guard let digest = SHA256Digest.of(UnsafeRawBufferPointer(rebasing: bytes[..<contentCount])),
                  digest.bytes.elementsEqual(bytes[contentCount...]) else { return nil }

            var reader = CacheBinaryReader(UnsafeRawBufferPointer(rebasing: bytes[..<contentCount]), from: magic.count)
            guard let metadataCount = reader.u32(), let metadata = reader.raw(Int(metadataCount)),
                  let bodyCount = reader.u64(), bodyCount == UInt64(reader.remaining),
                  let body = reader.raw(Int(bodyCount)) else { return nil }
            var fields = CacheBinaryReader(metadata)
            guard let urlKey = fields.digest(), let partition = fields.digest(), let variantKey = fields.digest(),
                  let status = fields.u16(), (200...599).contains(status),
                  let requestTime = fields.f64(), let responseTime = fields.f64(),
                  let varyCount = fields.u16(), Int(varyCount) <= maximumVaryNames else { return nil }
            var varyNames: [String] = []
            for _ in 0..<varyCount {
                guard let name = fields.text16() else { return nil }
                varyNames.append(name)
            }
            guard let lineCount = fields.u32(), Int(lineCount) <= maximumLines else { return nil }
            var headers: CacheHeaderLines = []
            headers.reserveCapacity(Int(lineCount))
            for _ in 0..<lineCount {
                guard let name = fields.text32(), let value = fields.text32() else { return nil }
                headers.append((name: name, value: value))
            }
            guard fields.remaining == 0 else { return nil }
            return StoredResponse(urlKey: urlKey, partition: partition, variantKey: variantKey, varyNames: varyNames,
                                  statusCode: Int(status), headers: headers, body: Data(body),
                                  requestTime: requestTime, responseTime: responseTime)
        }
    }
}
