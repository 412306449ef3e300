internal import CNetworkLayerCurl

/// libcurl before 8.1.0 keeps a pointer to the last header it stored past the transfer, which the
/// next frees as it starts, then appends a continuation line right after its status line to it: a
/// use-after-free any server can trigger (curl#11101). A pooled handle's is quarantined (buffer_cache.c).
extension CurlEasyHandle {
    /// Whether this libcurl keeps the pointer (fixed in 8.1.0, curl#11103).
    static let keepsStaleHeaderPointer = (curl_version_info(CURLVERSION_TENTH)?.pointee.version_num ?? 0) < 0x08_01_00

    /// After a transfer whose lines `block` saw: quarantines the header libcurl stored last, and ends
    /// the quarantine of the one before. `false` when the handle must run no other transfer: the
    /// lines do not name it, libcurl does not hold it last, or the quarantine is full. Engine thread.
    func quarantineLastStoredHeader(of block: ResponseHeaderBlock) -> Bool {
        switch block.lastStored {
        case .nothing:
            // The pointer is still the quarantined one, unless libcurl stored lines unseen.
            return nl_holds_stored_headers(raw) == 0
        case .unknown:
            return false
        case .status:
            return Self.statusName.withUTF8Buffer { quarantineLastStoredHeader(named: $0) }
        case .field:
            return block.withLastStoredName { quarantineLastStoredHeader(named: $0) } ?? false
        }
    }

    private static let statusName: StaticString = ":status"

    private func quarantineLastStoredHeader(named name: UnsafeBufferPointer<UInt8>) -> Bool {
        var builtIn: Int32 = 1
        let kept = name.withMemoryRebound(to: CChar.self) {
            nl_quarantine_last_header(raw, $0.baseAddress, $0.count, quarantinedHeader, &builtIn)
        }
        guard let kept else { return builtIn == 0 }
        quarantinedHeader = kept
        return true
    }
}
