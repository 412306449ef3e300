import Foundation
import Testing
import TestScheduling

/// The stream cancellation tests see a connection close in the kernel's TCP table
/// (`countEstablished`, Support/Servers/TCPConnections.swift): the instrument must count exactly
/// the client side's established connections to a port.
@Suite("The TCP table reader counts established client connections to a port", .sharing)
struct TCPTableTests {
    static let header = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"

    @Test("Only ESTABLISHED lines whose remote address ends in the port count")
    func countsOnlyEstablishedToThePort() {
        let table = Self.header + """
               0: 0100007F:C350 0100007F:1F90 01 00000000:00000000 00:00000000 00000000     0        0 101 1
               1: 0100007F:C351 0100007F:1F90 06 00000000:00000000 03:00000F9E 00000000     0        0 0 3
               2: 0100007F:1F90 0100007F:C352 01 00000000:00000000 00:00000000 00000000     0        0 102 1
               3: 0100007F:C353 0100007F:1F91 01 00000000:00000000 00:00000000 00000000     0        0 103 1
              10: 0100007F:C354 0100007F:11F90 01 00000000:00000000 00:00000000 00000000     0        0 104 1
               4: 0100007F:C355 0100007F:1F90 01 00000000:00000000 00:00000000 00000000     0        0 105 1
            """
        // 0 and 4 count; not 1 (TIME_WAIT), 2 (the port is the local one: the server's side), 3
        // (another port) or 10 (its last four digits are the port's, but the colon is part of the
        // match and "11F90" is another number).
        #expect(countEstablished(in: Array(table.utf8), toPort: 0x1F90) == 2)
        #expect(countEstablished(in: Array(table.utf8), toPort: 0x1F91) == 1)
        #expect(countEstablished(in: Array(table.utf8), toPort: 0xC350) == 0)  // a local port only
    }

    @Test("An empty table, a header alone and a line cut short count nothing")
    func degenerateTables() {
        #expect(countEstablished(in: [], toPort: 80) == 0)
        #expect(countEstablished(in: Array(Self.header.utf8), toPort: 80) == 0)
        #expect(countEstablished(in: Array((Self.header + "   0: 0100007F:C350 0100007F:0050").utf8), toPort: 80) == 0)
    }
}
