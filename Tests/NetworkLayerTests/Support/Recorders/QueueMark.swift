import Dispatch
import Foundation

/// Marks a queue so a closure can tell whether it runs there; the key is this mark's own.
final class QueueMark: @unchecked Sendable {
    // @unchecked Sendable: `key` and `token` are immutable; DispatchSpecificKey is only an identity.
    let key = DispatchSpecificKey<UUID>()
    let token = UUID()

    init(_ queue: DispatchQueue) { queue.setSpecific(key: key, value: token) }

    var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == token }
}
