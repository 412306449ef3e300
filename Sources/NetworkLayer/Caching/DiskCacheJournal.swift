import Foundation

/// What the disk cache's index knows of one entry file.
struct DiskCacheRecord: Sendable, Equatable {
    let urlKey: SHA256Digest
    let partition: SHA256Digest
    let variantKey: SHA256Digest
    let varyNames: [String]
    let dateValue: Double
    let entityTag: String?
    /// The file's size in bytes.
    let size: Int
    /// When it was last stored or served, in seconds since 1970 (least recently used goes first).
    var lastAccess: Double

    init(urlKey: SHA256Digest, partition: SHA256Digest, variantKey: SHA256Digest, varyNames: [String],
         dateValue: Double, entityTag: String?, size: Int, lastAccess: Double) {
        self.urlKey = urlKey
        self.partition = partition
        self.variantKey = variantKey
        self.varyNames = varyNames
        self.dateValue = dateValue
        self.entityTag = entityTag
        self.size = size
        self.lastAccess = lastAccess
    }

    init(_ response: StoredResponse, size: Int, lastAccess: Double) {
        self.init(urlKey: response.urlKey, partition: response.partition, variantKey: response.variantKey,
                  varyNames: response.varyNames, dateValue: response.dateValue, entityTag: response.freshness.entityTag,
                  size: size, lastAccess: lastAccess)
    }

    var summary: CacheVariantSummary {
        CacheVariantSummary(variantKey: variantKey, partition: partition, varyNames: varyNames, dateValue: dateValue,
                            entityTag: entityTag)
    }
}

/// The disk cache's index: an append-only journal of what happened to the entry files, which
/// every process sharing the directory reads forward from where it last stopped, and which is
/// rewritten whole (to a temporary file, then renamed) when it has grown well past what it describes.
///
/// ```
/// "NLCJRNL1"                                   8 bytes
/// records, each: payload length                UInt32
///                payload                       kind (UInt8) and its fields
///                check                         the first 8 bytes of the payload's SHA-256
/// ```
///
/// Kinds: 1 stored (its ``DiskCacheRecord``), 2 removed (variant key), 3 used (variant key, time),
/// 4 everything removed. Each append is one `write` under the directory's lock, so only a crash
/// leaves a partial record, at the end, which the next writer cuts off; a damaged record before
/// the end makes the index be rebuilt from the entry files.
enum DiskCacheJournal {
    static let magic = Array("NLCJRNL1".utf8)
    /// The largest payload a record may claim.
    static let maximumPayload = 1 << 16

    enum Record: Sendable, Equatable {
        case put(DiskCacheRecord)
        case remove(SHA256Digest)
        case access(SHA256Digest, Double)
        case clear
    }

    /// How far reading got.
    enum Ending: Equatable {
        /// Every byte read as whole records.
        case complete
        /// A partial record at the end (a crash mid-append): the records before it are good.
        case tornTail
        /// A damaged record with more after it: the journal cannot be trusted.
        case damaged
    }

    /// The bytes of `records`, appended as they are.
    static func encode(_ records: [Record]) -> [UInt8] {
        var bytes: [UInt8] = []
        for record in records {
            var payload = CacheBinaryWriter()
            switch record {
            case .put(let entry):
                payload.u8(1)
                payload.digest(entry.urlKey)
                payload.digest(entry.partition)
                payload.digest(entry.variantKey)
                payload.f64(entry.dateValue)
                payload.u64(UInt64(max(0, entry.size)))
                payload.f64(entry.lastAccess)
                payload.u8(entry.entityTag == nil ? 0 : 1)
                payload.text16(entry.entityTag ?? "")
                payload.u16(UInt16(clamping: entry.varyNames.count))
                for name in entry.varyNames.prefix(Int(UInt16.max)) { payload.text16(name) }
            case .remove(let key):
                payload.u8(2)
                payload.digest(key)
            case .access(let key, let time):
                payload.u8(3)
                payload.digest(key)
                payload.f64(time)
            case .clear:
                payload.u8(4)
            }
            guard let check = SHA256Digest.of(payload.bytes) else { continue }
            var framed = CacheBinaryWriter()
            framed.u32(UInt32(payload.bytes.count))
            framed.raw(payload.bytes)
            framed.raw(check.bytes.prefix(8))
            bytes += framed.bytes
        }
        return bytes
    }

    /// The records in `bytes` from `offset` (after the magic), where the good records end, and why.
    static func decode(_ bytes: UnsafeRawBufferPointer, from offset: Int) -> (records: [Record], end: Int, ending: Ending) {
        var reader = CacheBinaryReader(bytes, from: offset)
        var records: [Record] = []
        while reader.remaining > 0 {
            let start = reader.position
            guard let count = reader.u32() else { return (records, start, .tornTail) }
            guard Int(count) <= maximumPayload, Int(count) > 0 else { return (records, start, .damaged) }
            guard Int(count) + 8 <= reader.remaining, let payload = reader.raw(Int(count)), let check = reader.raw(8) else {
                return (records, start, .tornTail)
            }
            guard let digest = SHA256Digest.of(payload), digest.bytes.prefix(8).elementsEqual(check),
                  let record = record(payload) else {
                return (records, start, reader.remaining == 0 ? .tornTail : .damaged)
            }
            records.append(record)
        }
        return (records, reader.position, .complete)
    }

    private static func record(_ payload: UnsafeRawBufferPointer) -> Record? {
        var fields = CacheBinaryReader(payload)
        let record: Record
        switch fields.u8() {
        case 1:
            guard let urlKey = fields.digest(), let partition = fields.digest(), let variantKey = fields.digest(),
                  let dateValue = fields.f64(), let size = fields.u64(), size <= UInt64(Int.max),
                  let lastAccess = fields.f64(), let hasTag = fields.u8(), let tag = fields.text16(),
                  let varyCount = fields.u16(), Int(varyCount) <= CacheVary.maximumNames else { return nil }
            var names: [String] = []
            for _ in 0..<varyCount {
                guard let name = fields.text16() else { return nil }
                names.append(name)
            }
            record = .put(DiskCacheRecord(urlKey: urlKey, partition: partition, variantKey: variantKey, varyNames: names,
                                          dateValue: dateValue, entityTag: hasTag == 1 ? tag : nil, size: Int(size),
                                          lastAccess: lastAccess))
        case 2:
            guard let key = fields.digest() else { return nil }
            record = .remove(key)
        case 3:
            guard let key = fields.digest(), let time = fields.f64() else { return nil }
            record = .access(key, time)
        case 4:
            record = .clear
        default:
            return nil
        }
        return fields.remaining == 0 ? record : nil
    }
}
