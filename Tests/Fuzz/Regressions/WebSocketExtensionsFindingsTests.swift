import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// What the websocket-extensions fuzz target found, stated as behaviour.
@Suite("Fuzz findings: Sec-WebSocket-Extensions", .sharing)
struct WebSocketExtensionsFindingsTests {
    /// The finding was in the target's model, not the library: read as `Character`s, the `,` the
    /// model appends to end a line joined the U+0605 before it in one grapheme, so the model saw
    /// no element and expected no extension. The library splits the line itself, finds one
    /// element, and refuses it.
    @Test("An extension line of a prepending mark alone (U+0605) is an element: with no offer made, it is refused")
    func prependingMarkIsAnElement() throws {
        #expect(throws: WebSocketProtocolError.self) { try PerMessageDeflate.accepted(["", "\u{0605}"], offer: nil) }
        try FuzzTargets.named("websocket-extensions")?.check(FuzzInputs.regression("websocket-extensions", "prepending-mark-line-refused"))
    }
}
