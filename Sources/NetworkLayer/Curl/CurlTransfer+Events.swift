internal import CNetworkLayerCurl
import Foundation

// The call's events from libcurl, for a transfer made while someone listens (``CallEvents``).
// Its callback is part of a pooled handle's baseline, so a transfer nobody listens to never keeps
// it: the handle is reset first. Engine thread.
extension CurlTransfer {
    /// The request-start callback alone (the idle timeout's sets it too, and the events ride on
    /// it); `configure` points it at each transfer.
    func configureEvents() throws(NetworkError) {
        try handle.setPrerequestCallback(curlRequestStarts)
    }

    /// The connection is ready and the request goes now: a new connection's DNS, connect and TLS
    /// phases at the times libcurl measured (offsets from the transfer's start, so never later
    /// than now), then the connection, then the request handed to it.
    @inline(never)
    func emitConnectionEvents() {
        guard let events, let eventStart else { return }
        let now = ContinuousClock.now
        func at(_ info: CURLINFO) -> ContinuousClock.Instant {
            min(eventStart + .microseconds(max(handle.offset(info) ?? 0, 0)), now)
        }
        // libcurl counts the connections this transfer opened: none when it reused one.
        let reused = (handle.long(CURLINFO_NUM_CONNECTS) ?? 0) == 0
        var burst: [(CallEvent.Kind, ContinuousClock.Instant)] = []
        if !reused {
            let lookedUp = at(CURLINFO_NAMELOOKUP_TIME_T), connected = at(CURLINFO_CONNECT_TIME_T)
            // A request sent again on a new connection (the kept one had died): its lookup started
            // after the first request's events, at a time libcurl does not keep.
            let started = handle.requestsSent.pointee > 1 ? lookedUp : eventStart
            burst = [(.dnsStart, started), (.dnsEnd, lookedUp), (.connectStart, lookedUp), (.connectEnd, connected)]
            // Zero on a plain connection (libcurl sets at least 1 µs after a handshake).
            if (handle.offset(CURLINFO_APPCONNECT_TIME_T) ?? 0) > 0 {
                burst += [(.tlsStart, connected), (.tlsEnd, max(at(CURLINFO_APPCONNECT_TIME_T), connected))]
            }
        }
        burst += [(.connectionAcquired(reused: reused), now), (.requestHeadersSent, now)]
        events.emit(burst)
    }

    /// The end of a header block: the final response's head (an interim 1xx is not one).
    @inline(never)
    func emitHeadersReceived() {
        guard let events, isFinalResponse else { return }
        events.emit(.responseHeadersReceived(status: handle.long(CURLINFO_RESPONSE_CODE) ?? 0))
    }
}
