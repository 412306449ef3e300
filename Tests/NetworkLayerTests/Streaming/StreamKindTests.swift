import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// `StreamKind(for:)` decides, from the response type alone, whether a request streams and how.
@Suite("The stream kind of a response type", .sharing)
struct StreamKindTests {
    @Test("The streaming types have their kinds; other types, however generic, have none")
    func kinds() {
        #expect(StreamKind(for: ByteStream.self) == .bytes)
        #expect(StreamKind(for: EventStream.self) == .events)
        #expect(StreamKind(for: JSONLines<Int>.self) == .jsonLines)
        #expect(StreamKind(for: JSONLines<String>.self) == .jsonLines)
        #expect(StreamKind(for: WebSocket.self) == .webSocket)
        for type: Any.Type in [Data.self, String.self, HTTPResponse.self, [Int].self, DownloadedFile.self, Optional<ByteStream>.self] {
            #expect(StreamKind(for: type) == nil, "\(type)")
        }
    }
}
