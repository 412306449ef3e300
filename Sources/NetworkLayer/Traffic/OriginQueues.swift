import Foundation

/// One manager's per-origin limits and queues (``OriginLimit``), made with its settings and
/// shared by every request that resolves a limit.
///
/// What must stay true: at most the limit's places are taken per origin; a place taken is given
/// back exactly once; a waiter is resumed exactly once (granted, or cancelled and out of the
/// queue at once); continuations are resumed outside the lock. An origin with nothing in flight
/// or queued is forgotten, an adaptive one only once many origins are known, so that the registry
/// stays bounded while a learned limit survives an idle moment.
final class OriginQueues: Sendable {
    private let registry = Protected(Registry())

    enum Admission: Sendable {
        /// A place was free: no wait.
        case immediate
        case granted(waited: Duration)
        case cancelled
        /// `patience` passed first.
        case timedOut(waited: Duration)
    }

    /// How a waiter left the queue.
    enum Exit: Sendable { case granted, cancelled, timedOut }

    /// Takes a place at `origin`, waiting in its queue when all are taken, at most `patience`
    /// seconds. A cancelled task leaves the queue at once with ``Admission/cancelled``.
    nonisolated(nonsending) func admit(to origin: Origin, limit: OriginLimit, priority: RequestPriority,
                                       patience: TimeInterval = .infinity) async -> Admission {
        let (ticket, granted) = registry.withLock { registry -> (UInt64, [Waiter]) in
            registry.nextTicket &+= 1
            let ticket = registry.nextTicket
            var granted: [Waiter] = []
            let took = registry.origins[origin, default: Queue(limit)].takeIfFree(limit: limit, granting: &granted)
            return (took ? 0 : ticket, granted)
        }
        Self.resume(granted)
        if ticket == 0 { return .immediate }
        let started = ContinuousClock.now
        let exit = await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Exit, Never>) in
                let timer = patience.isFinite && patience < 1e9 ? DispatchWorkItem { [self] in leave(origin, ticket, .timedOut) } : nil
                let now: Exit? = registry.withLock { registry in
                    // Cancelled before it was queued: its handler found nothing to remove.
                    if Task.isCancelled { return .cancelled }
                    let waiter = Waiter(continuation: continuation, priority: priority.value, timer: timer)
                    return registry.origins[origin, default: Queue(limit)].enqueue(waiter, ticket: ticket) ? .granted : nil
                }
                if let now {
                    continuation.resume(returning: now)
                } else if let timer {
                    DispatchQueue.global().asyncAfter(deadline: .now() + max(0, patience), execute: timer)
                }
            }
        } onCancel: {
            leave(origin, ticket, .cancelled)
        }
        let waited = started.duration(to: .now)
        switch exit {
        case .granted: return .granted(waited: waited)
        case .cancelled: return .cancelled
        case .timedOut: return .timedOut(waited: waited)
        }
    }

    /// Takes the waiter of `ticket` out of the queue, if it is still there, and resumes it with `exit`.
    private func leave(_ origin: Origin, _ ticket: UInt64, _ exit: Exit) {
        let waiter = registry.withLock { registry in
            let waiter = registry.origins[origin]?.remove(ticket)
            registry.forgetIfIdle(origin)
            return waiter
        }
        guard let waiter else { return }
        waiter.timer?.cancel()
        waiter.continuation.resume(returning: exit)
    }

    private static func resume(_ granted: [Waiter]) {
        for waiter in granted {
            waiter.timer?.cancel()
            waiter.continuation.resume(returning: .granted)
        }
    }

    /// Gives a place back; `latency` (from the place taken to the response's head) teaches an
    /// adaptive limit, `nil` teaches nothing (a cancelled or failed hop). Returns the limit then.
    @discardableResult
    func release(_ origin: Origin, latency: Duration?) -> Int? {
        var granted: [Waiter] = []
        let limit = registry.withLock { registry in
            let limit = registry.origins[origin]?.release(latency: latency, granting: &granted)
            registry.forgetIfIdle(origin)
            return limit
        }
        Self.resume(granted)
        return limit
    }

    /// The origin's limit as it stands, or `nil` when nothing was sent there under a limit lately.
    func state(of origin: Origin) -> TrafficState? {
        registry.withLock { registry in
            registry.origins[origin].map { TrafficState(limit: $0.currentLimit, inFlight: $0.inFlight, queued: $0.waiters.count) }
        }
    }

    struct Waiter {
        let continuation: UnsafeContinuation<Exit, Never>
        let priority: Int
        /// Takes it out when its patience runs out; cancelled once it leaves otherwise.
        let timer: DispatchWorkItem?
    }

    struct Registry {
        var origins: [Origin: Queue] = [:]
        var nextTicket: UInt64 = 0

        /// How many origins an adaptive limit is remembered for while idle.
        static let rememberedOrigins = 1024

        mutating func forgetIfIdle(_ origin: Origin) {
            guard let queue = origins[origin], queue.inFlight == 0, queue.waiters.isEmpty else { return }
            if queue.limiter == nil || origins.count > Self.rememberedOrigins { origins[origin] = nil }
        }
    }

    /// One origin's places and waiters. A lane per priority, highest first, each in order of
    /// arrival; a cancelled waiter leaves `waiters` at once and its ticket in its lane is skipped,
    /// the lanes compacted once most of their tickets are stale (each cancel costs O(1) amortised).
    struct Queue {
        var limit: OriginLimit
        var fixed: Int
        var limiter: GradientLimiter?
        var inFlight = 0
        var lanes: [(priority: Int, tickets: [UInt64], head: Int)] = []
        var waiters: [UInt64: Waiter] = [:]
        var ticketsInLanes = 0

        init(_ limit: OriginLimit) {
            self.limit = limit
            fixed = 1
            limiter = nil
            configure(limit)
        }

        var currentLimit: Int { limiter?.limit ?? fixed }

        private mutating func configure(_ limit: OriginLimit) {
            self.limit = limit
            switch limit.kind {
            case .fixed(let count):
                fixed = max(1, count)
                limiter = nil
            case .adaptive(let minimum, let maximum, let initial):
                limiter = GradientLimiter(minimum: minimum, maximum: maximum, initial: initial)
            }
        }

        /// Takes a place if one is free and nobody waits. A request resolving another limit for
        /// this origin (another provider's, or a changed setting) sets it for the origin.
        mutating func takeIfFree(limit: OriginLimit, granting granted: inout [Waiter]) -> Bool {
            if limit != self.limit {
                configure(limit)
                grant(into: &granted)
            }
            guard waiters.isEmpty, inFlight < currentLimit else { return false }
            inFlight += 1
            return true
        }

        /// Queues `waiter`, or takes a place for it (`true`) when one came free meanwhile.
        mutating func enqueue(_ waiter: Waiter, ticket: UInt64) -> Bool {
            if waiters.isEmpty, inFlight < currentLimit {
                inFlight += 1
                return true
            }
            waiters[ticket] = waiter
            ticketsInLanes += 1
            if let lane = lanes.firstIndex(where: { $0.priority == waiter.priority }) {
                lanes[lane].tickets.append(ticket)
            } else {
                let index = lanes.firstIndex { $0.priority < waiter.priority } ?? lanes.count
                lanes.insert((waiter.priority, [ticket], 0), at: index)
            }
            return false
        }

        mutating func remove(_ ticket: UInt64) -> Waiter? {
            guard let waiter = waiters.removeValue(forKey: ticket) else { return nil }
            if waiters.isEmpty {
                lanes = []
                ticketsInLanes = 0
            } else if ticketsInLanes > 2 * waiters.count + 64 {
                for index in lanes.indices {
                    lanes[index].tickets = lanes[index].tickets[lanes[index].head...].filter { waiters[$0] != nil }
                    lanes[index].head = 0
                }
                lanes.removeAll { $0.tickets.isEmpty }
                ticketsInLanes = waiters.count
            }
            return waiter
        }

        mutating func release(latency: Duration?, granting granted: inout [Waiter]) -> Int {
            if let latency { limiter?.sample(latency: latency, inFlight: inFlight) }
            inFlight = max(0, inFlight - 1)
            grant(into: &granted)
            return currentLimit
        }

        /// Moves waiters into free places, the highest priority's oldest first.
        private mutating func grant(into granted: inout [Waiter]) {
            while inFlight < currentLimit, !waiters.isEmpty, let waiter = popNext() {
                inFlight += 1
                granted.append(waiter)
            }
        }

        private mutating func popNext() -> Waiter? {
            let lane = 0  // the highest priority; a lane emptied is removed
            while lane < lanes.count {
                while lanes[lane].head < lanes[lane].tickets.count {
                    let ticket = lanes[lane].tickets[lanes[lane].head]
                    lanes[lane].head += 1
                    ticketsInLanes -= 1
                    if let waiter = waiters.removeValue(forKey: ticket) {
                        if lanes[lane].head == lanes[lane].tickets.count {
                            lanes.remove(at: lane)
                        } else if lanes[lane].head >= 1024, lanes[lane].head * 2 >= lanes[lane].tickets.count {
                            // A lane that never empties drops what it has served.
                            lanes[lane].tickets.removeFirst(lanes[lane].head)
                            lanes[lane].head = 0
                        }
                        return waiter
                    }
                }
                lanes.remove(at: lane)
            }
            return nil
        }
    }
}
