import Foundation
@testable import NetworkLayer

/// The disk cache's two file formats read back from any bytes: an entry file
/// (``DiskCacheEntry``) and the index journal (``DiskCacheJournal``).
///
/// Checked: any bytes decode without a trap (and without allocating what a length field claims);
/// an entry built from the input encodes and decodes to itself, and with any one byte changed or
/// the file cut anywhere it decodes to nothing; journal records built from the input decode to
/// themselves, a journal cut anywhere gives a prefix of them ending as a torn tail, and a journal
/// of any bytes reports an end within it.
enum CacheFilesFuzz {
    static func check(_ data: Data) throws(FuzzFailure) {
        var bytes = FuzzBytes(data)
        switch bytes.choice(3) {
        case 0:
            let raw = Data(bytes.rest())
            _ = DiskCacheEntry.decode(raw)
            _ = DiskCacheEntry.decode(Data(DiskCacheEntry.magic) + raw)
            let (_, end, _) = raw.withUnsafeBytes { DiskCacheJournal.decode($0, from: 0) }
            try require(end >= 0 && end <= raw.count, "journal end \(end) outside \(raw.count) bytes")
        case 1:
            try entryRoundTrip(&bytes)
        default:
            try journalRoundTrip(&bytes)
        }
    }

    private static func digest(_ bytes: inout FuzzBytes) -> SHA256Digest {
        SHA256Digest.of(bytes.take(4))!
    }

    private static func text(_ bytes: inout FuzzBytes) -> String {
        String(decoding: bytes.take(bytes.choice(12)), as: UTF8.self)
    }

    private static func entryRoundTrip(_ bytes: inout FuzzBytes) throws(FuzzFailure) {
        let headers = (0..<bytes.choice(6)).map { _ in (name: text(&bytes), value: text(&bytes)) }
        let response = StoredResponse(urlKey: digest(&bytes), partition: digest(&bytes), variantKey: digest(&bytes),
                                      varyNames: (0..<bytes.choice(4)).map { _ in text(&bytes) }, statusCode: 200 + bytes.choice(400),
                                      headers: headers, body: Data(bytes.take(bytes.choice(200))),
                                      requestTime: Double(bytes.word() % 1_000_000_000), responseTime: Double(bytes.word() % 1_000_000_000))
        guard let file = DiskCacheEntry.encode(response) else { throw FuzzFailure("an entry did not encode") }
        guard let back = DiskCacheEntry.decode(file) else { throw FuzzFailure("an entry did not decode") }
        try require(back.urlKey == response.urlKey && back.partition == response.partition && back.variantKey == response.variantKey
                        && back.varyNames == response.varyNames && back.statusCode == response.statusCode && back.body == response.body
                        && back.requestTime == response.requestTime && back.responseTime == response.responseTime
                        && back.headers.map(\.name) == response.headers.map(\.name) && back.headers.map(\.value) == response.headers.map(\.value),
                    "the entry changed on the way through its file")
        var changed = file
        let at = bytes.choice(file.count)
        changed[at] ^= UInt8(1 + bytes.choice(255))
        try require(DiskCacheEntry.decode(changed) == nil, "a file with byte \(at) of \(file.count) changed still decoded")
        let cut = bytes.choice(file.count)
        try require(DiskCacheEntry.decode(file.prefix(cut)) == nil, "a file cut to \(cut) of \(file.count) bytes still decoded")
    }

    private static func journalRoundTrip(_ bytes: inout FuzzBytes) throws(FuzzFailure) {
        var records: [DiskCacheJournal.Record] = []
        for _ in 0..<bytes.choice(8) {
            switch bytes.choice(4) {
            case 0:
                let tag: String? = bytes.bool() ? text(&bytes) : nil
                records.append(.put(DiskCacheRecord(urlKey: digest(&bytes), partition: digest(&bytes), variantKey: digest(&bytes),
                                                    varyNames: (0..<bytes.choice(3)).map { _ in text(&bytes) },
                                                    dateValue: Double(bytes.word() % 1_000_000), entityTag: tag,
                                                    size: bytes.choice(100_000), lastAccess: Double(bytes.choice(1000)))))
            case 1: records.append(.remove(digest(&bytes)))
            case 2: records.append(.access(digest(&bytes), Double(bytes.choice(1000))))
            default: records.append(.clear)
            }
        }
        let encoded = DiskCacheJournal.encode(records)
        let (decoded, end, ending) = encoded.withUnsafeBytes { DiskCacheJournal.decode($0, from: 0) }
        try require(decoded == records && end == encoded.count && ending == .complete, "the journal did not read back whole")
        let cut = bytes.choice(encoded.count + 1)
        let (prefix, prefixEnd, prefixEnding) = Array(encoded.prefix(cut)).withUnsafeBytes { DiskCacheJournal.decode($0, from: 0) }
        try require(Array(records.prefix(prefix.count)) == prefix && prefixEnd <= cut, "a cut journal gave other records")
        try require(cut == encoded.count || prefixEnding == .tornTail || prefixEnd == cut, "a journal cut at \(cut) ended \(prefixEnding)")
    }
}
