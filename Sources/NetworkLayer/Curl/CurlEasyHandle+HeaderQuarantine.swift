internal import CNetworkLayerCurl

/// libcurl before 8.1.0 keeps, from one transfer of a handle to the next, a pointer to the last
/// header its headers API stored, which the next transfer frees as it starts: a line starting with
/// white space right after that transfer's status line is then appended to the freed block (a
/// heap use-after-free any server can trigger, curl#11101). A pooled handle's last stored header
/// is therefore quarantined when its transfer ends: libcurl's free of it leaves it allocated, and
/// the append reallocates live memory (buffer_cache.c). A handle whose last stored header cannot
/// be named and checked runs no other transfer.
extension CurlEasyHandle {
    /// Whether this libcurl keeps the pointer (fixed in 8.1.0, curl#11103).
    static let keepsStaleHeaderPointer = (curl_version_info(CURLVERSION_TENTH)?.pointee.version_num ?? 0) < 0x08_01_00

    /// After a transfer whose header lines `block` saw: quarantines the header libcurl stored last,
    /// and ends the quarantine of the one before it, which libcurl no longer points to. `false`
    /// when the handle must run no other transfer: the header cannot be named from the lines
    /// (``ResponseHeaderBlock/StoredHeader/unknown``), libcurl does not find it as the last one
    /// stored, or the quarantine has no room. Engine thread, after the transfer left the multi handle.
    func quarantineLastStoredHeader(of block: ResponseHeaderBlock) -> Bool {
        switch block.lastStored {
        case .nothing:
            // libcurl's pointer is the quarantined one still, unless it stored lines unseen.
            return nl_holds_stored_headers(raw) == 0
        case .unknown:
            return false
        case .status:
            return Self.statusName.withUTF8Buffer { quarantineLastStoredHeader(named: $0) }
        case .field:
            return block.withLastStoredName { quarantineLastStoredHeader(named: $0) } ?? false
        }
    }

    /// HTTP/2's status, as libcurl stores it.
    private static let statusName: StaticString = ":status"

    private func quarantineLastStoredHeader(named name: UnsafeBufferPointer<UInt8>) -> Bool {
        var builtIn: Int32 = 1
        let found = name.withMemoryRebound(to: CChar.self) { nl_last_stored_header(raw, $0.baseAddress, $0.count, &builtIn) }
        guard let found else { return builtIn == 0 }
        // Released first: the new block may have the old one's address (reallocated in place).
        if let previous = quarantinedHeader {
            nl_release_quarantined_header(raw, previous)
            quarantinedHeader = nil
        }
        guard nl_quarantine_header(raw, found) != 0 else { return false }
        quarantinedHeader = found
        return true
    }
}
