import Foundation

/// Stored responses in a directory: one file per variant (``DiskCacheEntry``) and an index
/// (``DiskCacheJournal``), bounded by a limit in bytes (the files and the index together), least
/// recently used evicted first.
///
/// - The directory has mode 0700; every file mode 0600, written under a temporary name and
///   renamed into place, so no reader ever sees half a file.
/// - Instances in any number of processes may share the directory: every change is made holding
///   an exclusive `flock` on its `lock` file, after reading what the others appended to the index.
///   Reading a response needs no lock (files are only ever replaced whole).
/// - A damaged file is treated as absent and deleted; a damaged index is rebuilt from the files;
///   a crash's leftovers are deleted when the directory is opened.
/// - Responses read recently are kept decoded in memory with their file's identity: a hit whose
///   file still has it is served after one `stat`. A copy is trusted only when the file changed
///   before the clock tick of the read, so that a write in the same tick cannot go unseen.
///
/// Thread-safe: one ``Protected`` lock around the state; file work happens under it.
final class DiskCacheStorage: CacheStorage {
    let limit: Int
    let directory: URL
    var isPersistent: Bool { true }

    /// The directory could not be created or its lock file opened.
    struct OpenError: Error, CustomStringConvertible {
        let description: String
    }

    static let entrySuffix = ".nlc"
    static let temporaryPrefix = ".tmp-"
    static let pendingAccessLimit = 256
    /// Eviction makes room down to this fraction of the limit, so that it runs once per several stores.
    static let evictionTarget = 0.9
    /// The most bytes of decoded responses kept in memory: a quarter of the limit, at most 4 MB.
    let hotLimit: Int

    /// What identifies the content of a file without reading it: any write changes the
    /// modification and change times, any replacement the inode.
    struct FileIdentity: Equatable {
        let device: UInt64
        let inode: UInt64
        let size: Int
        let modified: timespec
        let changed: timespec

        init(_ info: stat) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            size = Int(info.st_size)
            modified = info.st_mtim
            changed = info.st_ctim
        }

        static func == (a: FileIdentity, b: FileIdentity) -> Bool {
            a.device == b.device && a.inode == b.inode && a.size == b.size
                && a.modified.tv_sec == b.modified.tv_sec && a.modified.tv_nsec == b.modified.tv_nsec
                && a.changed.tv_sec == b.changed.tv_sec && a.changed.tv_nsec == b.changed.tv_nsec
        }

        /// Whether any later change to the file is bound to show in its times: it last changed before the
        /// current tick of the kernel's coarse file clock (taken after the read).
        func isSettled(before tick: timespec) -> Bool {
            func earlier(_ a: timespec) -> Bool { a.tv_sec < tick.tv_sec || (a.tv_sec == tick.tv_sec && a.tv_nsec < tick.tv_nsec) }
            return earlier(modified) && earlier(changed)
        }
    }

    private struct HotEntry {
        let response: StoredResponse
        let identity: FileIdentity
        let path: String
        let cost: Int
        var lastUse: UInt64
    }

    /// The decoded responses kept in memory (see ``hotLimit``), by variant key.
    private struct HotSet {
        var entries: [SHA256Digest: HotEntry] = [:]
        var total = 0
        var uses: UInt64 = 0

        mutating func remove(_ key: SHA256Digest) {
            if let old = entries.removeValue(forKey: key) { total -= old.cost }
        }

        /// Keeps `entry`, evicting the least recently used down to three quarters of `limit` when over it.
        mutating func insert(_ entry: HotEntry, key: SHA256Digest, limit: Int) {
            remove(key)
            guard entry.cost <= limit / 4 else { return }
            if total + entry.cost > limit {
                let target = limit * 3 / 4 - entry.cost
                for (old, value) in entries.sorted(by: { $0.value.lastUse < $1.value.lastUse }) {
                    if total <= target { break }
                    entries[old] = nil
                    total -= value.cost
                }
            }
            entries[key] = entry
            total += entry.cost
        }

        mutating func nextUse() -> UInt64 {
            uses &+= 1
            return uses
        }
    }

    private struct Index {
        var records: [SHA256Digest: DiskCacheRecord] = [:]
        var variants: [SHA256Digest: Set<SHA256Digest>] = [:]
        var entryBytes = 0

        mutating func put(_ record: DiskCacheRecord) {
            remove(record.variantKey)
            records[record.variantKey] = record
            variants[record.urlKey, default: []].insert(record.variantKey)
            entryBytes += record.size
        }

        mutating func remove(_ key: SHA256Digest) {
            guard let old = records.removeValue(forKey: key) else { return }
            entryBytes -= old.size
            variants[old.urlKey]?.remove(key)
            if variants[old.urlKey]?.isEmpty == true { variants[old.urlKey] = nil }
        }

        mutating func apply(_ record: DiskCacheJournal.Record) {
            switch record {
            case .put(let entry): put(entry)
            case .remove(let key): remove(key)
            case .access(let key, let time):
                if let previous = records[key]?.lastAccess { records[key]?.lastAccess = max(previous, time) }
            case .clear: self = Index()
            }
        }
    }

    private struct State {
        var index = Index()
        /// The journal file last read or written: device, inode, and how many bytes of it are applied.
        var journal: (device: UInt64, inode: UInt64, size: Int)?
        var pendingAccess: [SHA256Digest: Double] = [:]
        /// The latest access time given out: each later one is later still, so the order of use is kept
        /// within one clock tick.
        var latestAccess: Double = 0
        var hot = HotSet()

        mutating func accessTime(_ now: Double) -> Double {
            latestAccess = max(now.isFinite ? now : 0, latestAccess.nextUp)
            return latestAccess
        }
    }

    private let lockDescriptor: Int32
    private let state = Protected(State())
    private let journalPath: String
    /// The directory's path with a trailing `/`, for entry paths made by concatenation.
    private let entryPathPrefix: String

    /// - Throws: ``OpenError`` when the directory cannot be created or is not a directory, or the
    ///   lock file cannot be opened.
    init(directory: URL, limit: Int) throws {
        self.limit = max(0, limit)
        hotLimit = min(self.limit / 4, 4 << 20)
        self.directory = directory.standardizedFileURL
        journalPath = self.directory.appendingPathComponent("index").path
        entryPathPrefix = self.directory.path.hasSuffix("/") ? self.directory.path : self.directory.path + "/"
        try Self.makeDirectory(self.directory.path)
        let lockPath = self.directory.appendingPathComponent("lock").path
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw OpenError(description: "the cache's lock file \(lockPath) could not be opened: \(String(cString: strerror(errno)))")
        }
        lockDescriptor = descriptor
        state.withLock { state in
            exclusively(&state) { state in
                cleanUp(&state)
                enforceLimit(&state)
            }
        }
    }

    deinit {
        state.withLock { state in
            if !state.pendingAccess.isEmpty { exclusively(&state) { _ in } }
        }
        close(lockDescriptor)
    }

    private static func makeDirectory(_ path: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw OpenError(description: "the cache directory \(path) is a file") }
            return
        }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty, parent != path { try makeDirectory(parent) }
        if mkdir(path, 0o700) != 0 && errno != EEXIST {
            throw OpenError(description: "the cache directory \(path) could not be created: \(String(cString: strerror(errno)))")
        }
    }

    // MARK: - CacheStorage

    func summaries(forURL urlKey: SHA256Digest) -> [CacheVariantSummary] {
        state.withLock { state in
            refreshIfChanged(&state)
            return (state.index.variants[urlKey] ?? []).compactMap { state.index.records[$0]?.summary }
        }
    }

    func summariesWithoutBlocking(forURL urlKey: SHA256Digest) throws(CacheWouldBlock) -> [CacheVariantSummary] {
        let answer = state.withLockIfAvailable { state -> [CacheVariantSummary]? in
            guard journalUnchanged(state) else { return nil }
            return (state.index.variants[urlKey] ?? []).compactMap { state.index.records[$0]?.summary }
        }
        guard case .some(.some(let summaries)) = answer else { throw CacheWouldBlock() }
        return summaries
    }

    /// From the decoded copy only, after a `stat` of the entry's file; throws when this needs the lock
    /// file, a read or an index append. An instance that replaced or removed this entry since the
    /// index was checked changed its file, which the `stat` sees.
    func loadWithoutBlocking(urlKey: SHA256Digest, variantKey: SHA256Digest, now: Double) throws(CacheWouldBlock) -> StoredResponse? {
        enum Answer { case response(StoredResponse?), wouldBlock }
        let answer = state.withLockIfAvailable { state -> Answer in
            guard let record = state.index.records[variantKey], record.urlKey == urlKey else { return .response(nil) }
            guard let hot = state.hot.entries[variantKey], hot.response.urlKey == urlKey,
                  state.pendingAccess.count + 1 < Self.pendingAccessLimit else { return .wouldBlock }
            var info = stat()
            guard stat(hot.path, &info) == 0, FileIdentity(info) == hot.identity else { return .wouldBlock }
            let use = state.hot.nextUse()
            state.hot.entries[variantKey]?.lastUse = use
            noteAccess(&state, variantKey, now: now)
            return .response(hot.response)
        }
        guard case .response(let response) = answer else { throw CacheWouldBlock() }
        return response
    }

    func load(urlKey: SHA256Digest, variantKey: SHA256Digest, now: Double) -> StoredResponse? {
        state.withLock { state in
            refreshIfChanged(&state)
            guard let record = state.index.records[variantKey], record.urlKey == urlKey else {
                state.hot.remove(variantKey)
                return nil
            }
            if let hot = state.hot.entries[variantKey] {
                var info = stat()
                if stat(hot.path, &info) == 0, FileIdentity(info) == hot.identity, hot.response.urlKey == urlKey {
                    let use = state.hot.nextUse()
                    state.hot.entries[variantKey]?.lastUse = use
                    noteAccess(&state, variantKey, now: now)
                    return hot.response
                }
                state.hot.remove(variantKey)
            }
            let path = entryPath(variantKey)
            switch readEntry(path, variantKey: variantKey, urlKey: urlKey) {
            case .missing:
                return nil
            case .damaged:
                exclusively(&state) { state in
                    // Another process may have just replaced it: delete only what is still damaged.
                    if case .damaged = readEntry(path, variantKey: variantKey, urlKey: urlKey) {
                        state.hot.remove(variantKey)
                        unlink(path)
                        state.index.remove(variantKey)
                        append(&state, [.remove(variantKey)])
                    }
                }
                return nil
            case .entry(let response, let identity, let tick):
                if identity.isSettled(before: tick) {
                    let entry = HotEntry(response: response, identity: identity, path: path, cost: response.cost,
                                         lastUse: state.hot.nextUse())
                    state.hot.insert(entry, key: variantKey, limit: hotLimit)
                }
                noteAccess(&state, variantKey, now: now)
                return response
            }
        }
    }

    /// Marks a variant as just used; the accesses go to the index in batches.
    private func noteAccess(_ state: inout State, _ variantKey: SHA256Digest, now: Double) {
        let time = state.accessTime(now)
        state.index.records[variantKey]?.lastAccess = time
        state.pendingAccess[variantKey] = time
        if state.pendingAccess.count >= Self.pendingAccessLimit { exclusively(&state) { _ in } }
    }

    @discardableResult
    func save(_ response: StoredResponse, now: Double) -> Bool {
        guard limit > 0, let file = DiskCacheEntry.encode(response), file.count <= largestEntry else { return false }
        return state.withLock { state in
            exclusively(&state) { state in
                let path = entryPath(response.variantKey)
                state.hot.remove(response.variantKey)
                guard writeAtomically(file, to: path) else { return false }
                let record = DiskCacheRecord(response, size: file.count, lastAccess: state.accessTime(now))
                state.index.put(record)
                state.pendingAccess[response.variantKey] = nil
                append(&state, [.put(record)])
                enforceLimit(&state)
                return state.index.records[response.variantKey] != nil
            }
        }
    }

    func remove(urlKey: SHA256Digest, variantKey: SHA256Digest) {
        state.withLock { state in
            exclusively(&state) { state in
                guard state.index.records[variantKey]?.urlKey == urlKey else { return }
                unlink(entryPath(variantKey))
                state.hot.remove(variantKey)
                state.index.remove(variantKey)
                append(&state, [.remove(variantKey)])
            }
        }
    }

    func removeAll(forURL urlKey: SHA256Digest) {
        state.withLock { state in
            exclusively(&state) { state in
                let keys = Array(state.index.variants[urlKey] ?? [])
                guard !keys.isEmpty else { return }
                for key in keys {
                    unlink(entryPath(key))
                    state.hot.remove(key)
                    state.index.remove(key)
                }
                append(&state, keys.map { .remove($0) })
            }
        }
    }

    func removeAll() {
        state.withLock { state in
            exclusively(&state) { state in
                for name in directoryNames() where name.hasSuffix(Self.entrySuffix) {
                    unlink(directory.appendingPathComponent(name).path)
                }
                state.index = Index()
                state.hot = HotSet()
                state.pendingAccess = [:]
                writeSnapshot(&state)
            }
        }
    }

    /// The bytes the entries and the index take now (never above ``limit``).
    var totalBytes: Int {
        state.withLock { state in
            refreshIfChanged(&state)
            return state.index.entryBytes + (state.journal?.size ?? 0)
        }
    }

    var count: Int {
        state.withLock { state in
            refreshIfChanged(&state)
            return state.index.records.count
        }
    }

    // MARK: - Locking and the index

    /// Runs `body` holding the directory's exclusive lock, after applying what other instances
    /// appended to the index; appends the pending accesses first.
    private func exclusively<T>(_ state: inout State, _ body: (inout State) -> T) -> T {
        while flock(lockDescriptor, LOCK_EX) != 0 && errno == EINTR {}
        defer { flock(lockDescriptor, LOCK_UN) }
        synchronize(&state)
        if !state.pendingAccess.isEmpty {
            let accesses = state.pendingAccess.map { DiskCacheJournal.Record.access($0.key, $0.value) }
            state.pendingAccess = [:]
            append(&state, accesses)
        }
        return body(&state)
    }

    private func refreshIfChanged(_ state: inout State) {
        if !journalUnchanged(state) { exclusively(&state) { _ in } }
    }

    private func journalUnchanged(_ state: State) -> Bool {
        var info = stat()
        return stat(journalPath, &info) == 0 && state.journal.map {
            $0.device == UInt64(info.st_dev) && $0.inode == UInt64(info.st_ino) && $0.size == Int(info.st_size)
        } == true
    }

    /// Brings the in-memory index up to the journal on disk. Holding the exclusive lock.
    private func synchronize(_ state: inout State) {
        let descriptor = open(journalPath, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else {
            rebuild(&state)
            return
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            rebuild(&state)
            return
        }
        let device = UInt64(info.st_dev), inode = UInt64(info.st_ino), size = Int(info.st_size)
        // Only what was appended since, when it is the same file and it grew; else all of it.
        var start = 0
        if let known = state.journal, known.device == device, known.inode == inode, known.size <= size {
            if known.size == size { return }
            start = known.size
        } else {
            state.index = Index()
        }
        guard size <= Self.maximumJournalSize(limit: limit),
              let bytes = readRange(descriptor, from: start, count: size - start), bytes.count == size - start,
              start > 0 || bytes.starts(with: DiskCacheJournal.magic) else {
            rebuild(&state)
            return
        }
        let skip = start == 0 ? DiskCacheJournal.magic.count : 0
        let (records, end, ending) = bytes.withUnsafeBytes { DiskCacheJournal.decode($0, from: skip) }
        switch ending {
        case .damaged:
            rebuild(&state)
            return
        case .tornTail:
            // A crash mid-append: the records before it stand; the partial one goes.
            truncate(journalPath, off_t(start + end))
        case .complete:
            break
        }
        for record in records { state.index.apply(record) }
        for (key, time) in state.pendingAccess { state.index.records[key]?.lastAccess = time }
        state.journal = (device, inode, start + end)
    }

    /// The largest index a cache of `limit` bytes reads: beyond, it is damaged.
    private static func maximumJournalSize(limit: Int) -> Int {
        max(1 << 20, limit.multipliedReportingOverflow(by: 4).overflow ? Int.max : limit * 4)
    }

    /// Rebuilds the index from the entry files (the journal is missing or damaged): each file is
    /// read whole and checked; damaged ones are deleted. Holding the exclusive lock.
    private func rebuild(_ state: inout State) {
        var index = Index()
        for name in directoryNames() where name.hasSuffix(Self.entrySuffix) {
            let path = directory.appendingPathComponent(name).path
            let hex = String(name.dropLast(Self.entrySuffix.count))
            guard let data = readFile(path), let response = DiskCacheEntry.decode(data), response.variantKey.hex == hex else {
                unlink(path)
                continue
            }
            var info = stat()
            let modified = stat(path, &info) == 0 ? Double(info.st_mtim.tv_sec) : response.responseTime
            index.put(DiskCacheRecord(response, size: data.count, lastAccess: modified))
        }
        state.index = index
        writeSnapshot(&state)
    }

    /// Rewrites the journal as one record per entry. Holding the exclusive lock.
    private func writeSnapshot(_ state: inout State) {
        for (key, time) in state.pendingAccess { state.index.records[key]?.lastAccess = time }
        state.pendingAccess = [:]
        let records = state.index.records.values.sorted { $0.lastAccess < $1.lastAccess }.map { DiskCacheJournal.Record.put($0) }
        let bytes = DiskCacheJournal.magic + DiskCacheJournal.encode(records)
        guard writeAtomically(Data(bytes), to: journalPath) else {
            state.journal = nil
            return
        }
        var info = stat()
        state.journal = stat(journalPath, &info) == 0 ? (UInt64(info.st_dev), UInt64(info.st_ino), Int(info.st_size)) : nil
    }

    /// Appends records to the journal in one write. Holding the exclusive lock.
    private func append(_ state: inout State, _ records: [DiskCacheJournal.Record]) {
        guard !records.isEmpty else { return }
        guard state.journal != nil else {
            writeSnapshot(&state)
            return
        }
        let bytes = DiskCacheJournal.encode(records)
        let descriptor = open(journalPath, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else {
            writeSnapshot(&state)
            return
        }
        defer { close(descriptor) }
        if writeAll(descriptor, bytes), let known = state.journal {
            state.journal = (known.device, known.inode, known.size + bytes.count)
        } else {
            // A short write leaves a partial record: the next reader cuts it off; reread then.
            state.journal = nil
        }
        compactIfNeeded(&state)
    }

    /// Rewrites the journal once it is much larger than what it describes: twice as large, or
    /// larger and an eighth of the limit. Holding the exclusive lock.
    private func compactIfNeeded(_ state: inout State) {
        guard let size = state.journal?.size else { return }
        let described = DiskCacheJournal.magic.count + state.index.records.count * 160 + 4096
        if size > 2 * described || (size > described && size > limit / 8) { writeSnapshot(&state) }
    }

    /// Evicts the least recently used entries while the entries and the index exceed the limit,
    /// down to ``evictionTarget`` of it. Holding the exclusive lock.
    private func enforceLimit(_ state: inout State) {
        func total() -> Int { state.index.entryBytes + (state.journal?.size ?? 0) }
        guard total() > limit else { return }
        compactIfNeeded(&state)
        guard total() > limit else { return }
        let target = Int(Double(limit) * Self.evictionTarget)
        var removed: [SHA256Digest] = []
        for record in state.index.records.values.sorted(by: { $0.lastAccess < $1.lastAccess }) {
            if state.index.entryBytes + (state.journal?.size ?? 0) + removed.count * 48 <= target { break }
            unlink(entryPath(record.variantKey))
            state.hot.remove(record.variantKey)
            state.index.remove(record.variantKey)
            removed.append(record.variantKey)
        }
        append(&state, removed.map { .remove($0) })
        if total() > limit { writeSnapshot(&state) }
    }

    /// Deletes what a crash left: temporary files, entry files the index does not list; and
    /// forgets listed entries whose file is gone. Holding the exclusive lock.
    private func cleanUp(_ state: inout State) {
        var listed: [String: SHA256Digest] = [:]
        for key in state.index.records.keys { listed[key.hex] = key }
        var present = Set<SHA256Digest>()
        for name in directoryNames() {
            let path = directory.appendingPathComponent(name).path
            if name.hasPrefix(Self.temporaryPrefix) {
                unlink(path)
            } else if name.hasSuffix(Self.entrySuffix) {
                if let key = listed[String(name.dropLast(Self.entrySuffix.count))] {
                    present.insert(key)
                } else {
                    unlink(path)
                }
            }
        }
        let missing = state.index.records.keys.filter { !present.contains($0) }
        for key in missing {
            state.hot.remove(key)
            state.index.remove(key)
        }
        append(&state, missing.map { .remove($0) })
    }

    // MARK: - Files

    private func entryPath(_ key: SHA256Digest) -> String {
        entryPathPrefix + key.hex + Self.entrySuffix
    }

    private func directoryNames() -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    }

    private enum EntryRead {
        case missing
        case damaged
        /// The response, its file's identity, and the coarse clock's time after the read.
        case entry(StoredResponse, FileIdentity, timespec)
    }

    /// An entry file read and checked: the digest of its content, and the keys it says it holds.
    private func readEntry(_ path: String, variantKey: SHA256Digest, urlKey: SHA256Digest) -> EntryRead {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return errno == ENOENT ? .missing : .damaged }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_size >= 0, Int(info.st_size) <= max(limit, 1 << 16),
              let data = readRange(descriptor, from: 0, count: Int(info.st_size)), data.count == Int(info.st_size)
        else { return .damaged }
        var tick = timespec()
        clock_gettime(CLOCK_REALTIME_COARSE, &tick)
        guard let response = DiskCacheEntry.decode(data), response.variantKey == variantKey, response.urlKey == urlKey
        else { return .damaged }
        return .entry(response, FileIdentity(info), tick)
    }

    private func readFile(_ path: String) -> Data? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_size >= 0, Int(info.st_size) <= max(limit, 1 << 16) else { return nil }
        return readRange(descriptor, from: 0, count: Int(info.st_size))
    }

    private func readRange(_ descriptor: Int32, from offset: Int, count: Int) -> Data? {
        guard count >= 0 else { return nil }
        var data = Data(count: count)
        var done = 0
        let ok = data.withUnsafeMutableBytes { buffer -> Bool in
            while done < count {
                let read = pread(descriptor, buffer.baseAddress! + done, count - done, off_t(offset + done))
                if read < 0 && errno == EINTR { continue }
                guard read > 0 else { return read == 0 }
                done += read
            }
            return true
        }
        guard ok else { return nil }
        if done < count { data.removeSubrange(done...) }
        return data
    }

    private func writeAll(_ descriptor: Int32, _ bytes: some ContiguousBytes) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var done = 0
            while done < buffer.count {
                let written = write(descriptor, buffer.baseAddress! + done, buffer.count - done)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return false }
                done += written
            }
            return true
        }
    }

    /// Writes `data` to a new temporary file (mode 0600) in the directory and renames it to `path`.
    private func writeAtomically(_ data: Data, to path: String) -> Bool {
        var random = SystemRandomNumberGenerator()
        let temporary = directory.appendingPathComponent(Self.temporaryPrefix + String(random.next(), radix: 16)).path
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { return false }
        let written = writeAll(descriptor, data)
        let closed = close(descriptor) == 0
        guard written, closed, rename(temporary, path) == 0 else {
            unlink(temporary)
            return false
        }
        return true
    }
}
