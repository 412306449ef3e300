import Foundation
@testable import NetworkLayer

/// The events a handler received, and a wait for a call's last one.
final class EventCollector: Sendable {
    private let events = Protected<[CallEvent]>([])

    func append(_ event: CallEvent) { events.withLock { $0.append(event) } }

    var all: [CallEvent] { events.withLock { $0 } }

    /// The events of the call `requestID`.
    func of(_ requestID: Int) -> [CallEvent] { all.filter { $0.requestID == requestID } }

    /// Waits (at most `limit`) for `count` calls to have ended; returns their ids, in order.
    func waitForEnds(_ count: Int = 1, limit: Duration = .seconds(10)) async -> [Int] {
        let deadline = ContinuousClock.now + limit
        while true {
            let ended = all.filter { $0.kind.endsCall }.map(\.requestID)
            if ended.count >= count || ContinuousClock.now > deadline { return ended }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }
}

extension CallEvent.Kind {
    var endsCall: Bool {
        switch self {
        case .callEnd, .callFailed: true
        default: false
        }
    }
}
