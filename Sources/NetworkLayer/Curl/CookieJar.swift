internal import CNetworkLayerCurl
import Foundation

/// One manager's cookie store: a libcurl share holding cookies (and the connections, TLS sessions
/// and names of the transfers that use it), optionally backed by a file in the Netscape format.
///
/// The manager's transfers attach the jar's share, so libcurl applies the cookie rules itself. A
/// share also holds a connection cache, which must not serve another cache key (other pins, a new
/// epoch): for a new key the jar starts a new share with a copy of the cookies (a cookie a transfer
/// on the old share receives after the copy is not carried over).
// @unchecked Sendable: the state is behind `state`'s lock; the shares serialise libcurl's own use
// of their data through their lock functions, so a scratch handle may read them from any thread.
final class CookieJar: @unchecked Sendable {
    /// The file the cookies are loaded from and written to, or `nil` for memory only.
    let file: URL?
    private struct State {
        var share: CurlShare
        /// The cache key the share's connections belong to; `nil` until a transfer used it.
        var key: ConnectionCacheKey?
    }
    private let state: Protected<State>

    /// A new, empty store (loaded from `file` when it exists).
    init(file: URL?) throws(NetworkError) {
        self.file = file
        let share = try CurlShare(sharingCookies: true)
        if let file {
            let handle = try CurlEasyHandle()
            try Self.attach(handle, to: share) { () throws(NetworkError) in
                try handle.set(CURLOPT_COOKIEFILE, file.path)
                try handle.set(CURLOPT_COOKIELIST, "RELOAD")
            }
        }
        state = Protected(State(share: share, key: nil))
    }

    /// The share a transfer under `key` uses. Engine thread.
    func share(for key: ConnectionCacheKey) throws(NetworkError) -> CurlShare {
        try state.withLock { (state: inout State) -> Result<CurlShare, NetworkError> in
            Result { () throws(NetworkError) -> CurlShare in
                if state.key == nil { state.key = key }
                guard state.key != key else { return state.share }
                let fresh = try CurlShare(sharingCookies: true)
                let lines = try Self.lines(of: state.share)
                let handle = try CurlEasyHandle()
                try Self.attach(handle, to: fresh) { () throws(NetworkError) in
                    for line in lines { try handle.set(CURLOPT_COOKIELIST, line) }
                }
                state = State(share: fresh, key: key)
                return fresh
            }
        }.get()
    }

    /// Every cookie in the store, as libcurl lists them (Netscape lines).
    func lines() throws(NetworkError) -> [String] {
        try state.withLock { state in Result { () throws(NetworkError) in try Self.lines(of: state.share) } }.get()
    }

    /// Empties the store, and its file.
    func removeAll() throws(NetworkError) {
        let file = self.file
        try state.withLock { state in
            Result { () throws(NetworkError) in
                let handle = try CurlEasyHandle()
                try Self.attach(handle, to: state.share) { () throws(NetworkError) in
                    try handle.set(CURLOPT_COOKIELIST, "ALL")
                    if let file { try Self.flush(handle, to: file) }
                }
            }
        }.get()
    }

    /// Writes the store to its file through `handle`, which must be attached to the jar's share
    /// (a finished transfer's, on the engine thread).
    static func flush(_ handle: CurlEasyHandle, to file: URL) throws(NetworkError) {
        try handle.set(CURLOPT_COOKIEJAR, file.path)
        try handle.set(CURLOPT_COOKIELIST, "FLUSH")
        // Unset, so that libcurl does not write the file again when the handle is cleaned up.
        try handle.set(CURLOPT_COOKIEJAR, pointer: nil)
    }

    private static func lines(of share: CurlShare) throws(NetworkError) -> [String] {
        let handle = try CurlEasyHandle()
        var lines: [String]?
        try attach(handle, to: share) { () throws(NetworkError) in lines = handle.lines(CURLINFO_COOKIELIST) }
        guard let lines else { throw .transport(.init(reason: "libcurl could not list the cookies of the store")) }
        return lines
    }

    /// Runs `body` with `handle` attached to `share`, and detaches it whatever happens (a share
    /// cannot be freed while a handle uses it).
    private static func attach(_ handle: CurlEasyHandle, to share: CurlShare, _ body: () throws(NetworkError) -> Void) throws(NetworkError) {
        try handle.set(CURLOPT_SHARE, pointer: share.raw)
        defer { try? handle.set(CURLOPT_SHARE, pointer: nil) }  // cannot fail for a handle not in a multi handle
        try body()
    }
}
