import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// `ResolvedRequest.streamKind(of:)` remembers the last type found not to stream: it must still
/// tell every type apart whatever came before it.
@Suite("The stream kind of a response type, with the non-streaming type remembered", .sharing)
struct StreamKindCacheTests {
    @Test("Streaming and plain types in turn keep their kinds")
    func alternating() {
        for _ in 0..<3 {
            #expect(ResolvedRequest.streamKind(of: Data.self) == nil)
            #expect(ResolvedRequest.streamKind(of: ByteStream.self) == .bytes)
            #expect(ResolvedRequest.streamKind(of: Data.self) == nil)
            #expect(ResolvedRequest.streamKind(of: EventStream.self) == .events)
            #expect(ResolvedRequest.streamKind(of: HTTPResponse.self) == nil)
            #expect(ResolvedRequest.streamKind(of: JSONLines<Int>.self) == .jsonLines)
            #expect(ResolvedRequest.streamKind(of: JSONLines<String>.self) == .jsonLines)
            #expect(ResolvedRequest.streamKind(of: String.self) == nil)
        }
    }
}
