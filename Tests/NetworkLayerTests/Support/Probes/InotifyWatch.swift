import Foundation

/// An inotify watch for opens and reads of some paths (a directory's watch covers its files).
final class InotifyWatch {
    private let descriptor: Int32

    init(paths: [String]) throws {
        descriptor = inotify_init1(0o4000 | 0o2000000)  // IN_NONBLOCK | IN_CLOEXEC
        guard descriptor >= 0 else { throw TestServerError(description: "inotify_init1 failed: \(errno)") }
        for path in paths {
            // IN_ACCESS (0x1) | IN_OPEN (0x20)
            guard inotify_add_watch(descriptor, path, 0x1 | 0x20) >= 0 else {
                close(descriptor)
                throw TestServerError(description: "inotify_add_watch(\(path)) failed: \(errno)")
            }
        }
    }

    deinit { close(descriptor) }

    /// The names (or "." for a watched path itself) of everything opened or read so far.
    func events() -> [String] {
        var names: [String] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            var offset = 0
            while offset + 16 <= count {
                // struct inotify_event { int wd; uint32_t mask, cookie, len; char name[]; }
                let length = buffer[(offset + 12)..<(offset + 16)].withUnsafeBytes { Int($0.loadUnaligned(as: UInt32.self)) }
                let nameBytes = buffer[(offset + 16)..<(offset + 16 + length)].prefix { $0 != 0 }
                names.append(nameBytes.isEmpty ? "." : String(decoding: nameBytes, as: UTF8.self))
                offset += 16 + length
            }
        }
        return Array(Set(names)).sorted()
    }
}
