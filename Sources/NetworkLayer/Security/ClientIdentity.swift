internal import CNetworkLayerCurl
import Foundation

/// A ``ClientCertificate`` read and checked: the bytes libcurl gets as blobs (so what was checked
/// is what is sent, even if the files change), the password, and a number shared by every request
/// presenting the same certificate and key. Cached by the files' identity (one `stat` per file per
/// request); a changed file is checked again, and gets a new number when its content differs.
// The bytes are arrays in plain stored properties, not `Data` in an enum's payload: LeakSanitizer
// cannot see references packed into an enum's spare bits, and reports the process-long cache as leaked.
final class ClientIdentity: Sendable {
    enum Kind: Sendable {
        case pem
        case pkcs12
    }

    let kind: Kind
    /// The PEM certificate (and its chain), or the PKCS#12 archive.
    let certificate: [UInt8]
    /// The PEM private key; `nil` for PKCS#12.
    let key: [UInt8]?
    let password: String?
    /// The identity's number, from 1: transfers with different numbers (or none, 0) never share a
    /// connection, a TLS session or a pooled handle's options.
    let number: Int
    /// The SHA-256 of the form and content (certificate, key or archive): the same in every
    /// process, so the response cache keys a client's responses by it, on disk too.
    let fingerprint: SHA256Digest

    private init(kind: Kind, certificate: [UInt8], key: [UInt8]?, password: String?, number: Int, fingerprint: SHA256Digest) {
        self.kind = kind
        self.certificate = certificate
        self.key = key
        self.password = password
        self.number = number
        self.fingerprint = fingerprint
    }

    /// The largest certificate, key or archive file read: a bound on what a path makes us allocate.
    static let fileSizeLimit = 1 << 20

    /// The checked identity for `certificate`, from the cache while its files are unchanged.
    ///
    /// - Parameter request: the request's description, for errors.
    /// - Throws: ``NetworkError/invalidCertificate(_:)`` saying which file and what is wrong with it.
    static func load(_ certificate: ClientCertificate, request: String) throws(NetworkError) -> ClientIdentity {
        let paths: [(url: URL, role: String)] = switch certificate.source {
        case .pem(let certificateURL, let keyURL):
            [(certificateURL, "the client certificate file"), (keyURL, "the client certificate's private key file")]
        case .pkcs12(let url):
            [(url, "the client certificate's PKCS#12 file")]
        }
        var stamps: [FileStamp] = []
        for (url, role) in paths { stamps.append(try FileStamp(of: url, role: role, request: request)) }
        if let cached = cache.withLock({ $0.entries[certificate] }), cached.stamps == stamps { return cached.identity }

        var contents: [[UInt8]] = []
        for (url, role) in paths { contents.append(try read(url, role: role, request: request)) }
        let kind: Kind = contents.count == 2 ? .pem : .pkcs12
        let key = contents.count == 2 ? contents[1] : nil
        try check(kind, certificate: contents[0], key: key, password: certificate.password, paths: paths.map(\.url), request: request)
        // The same content is the same identity, whichever files it came from.
        var material = Array((kind == .pem ? "pem" : "p12").utf8)
        for content in contents { material.append(0); material += content }
        var digest = [UInt8](repeating: 0, count: Int(NL_PIN_LENGTH))
        let hashed = nl_sha256(material, material.count, &digest)
        guard hashed == 1 else {
            throw failure("the client certificate could not be fingerprinted (out of memory)", request: request)
        }
        return cache.withLock { cache in
            if cache.entries.count >= 64 { cache.entries.removeAll() }  // a bound, not a policy: 64 certificates in use is a lot
            let number = cache.numbers[digest] ?? {
                cache.lastNumber += 1
                cache.numbers[digest] = cache.lastNumber
                return cache.lastNumber
            }()
            let identity = ClientIdentity(kind: kind, certificate: contents[0], key: key, password: certificate.password, number: number,
                                          fingerprint: digest.withUnsafeBytes { SHA256Digest(digest: $0) })
            cache.entries[certificate] = (stamps, identity)
            return identity
        }
    }

    // MARK: The cache

    private struct Cache {
        var entries: [ClientCertificate: (stamps: [FileStamp], identity: ClientIdentity)] = [:]
        /// Numbers by the SHA-256 of the identity's content; kept for the life of the process so
        /// that a number is never given to two identities.
        var numbers: [[UInt8]: Int] = [:]
        var lastNumber = 0
    }

    private static let cache = Protected(Cache())

    /// What identifies a file's content without reading it.
    private struct FileStamp: Equatable {
        let device: UInt64
        let inode: UInt64
        let size: Int64
        let modified: Int64
        let modifiedNanoseconds: Int
        let changed: Int64
        let changedNanoseconds: Int

        init(of url: URL, role: String, request: String) throws(NetworkError) {
            var info = stat()
            guard stat(url.path, &info) == 0 else {
                throw ClientIdentity.failure("\(role) \(url.path) could not be read (\(String(cString: strerror(errno))))", request: request)
            }
            guard info.st_mode & S_IFMT == S_IFREG else {
                throw ClientIdentity.failure("\(role) \(url.path) is not a regular file", request: request)
            }
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            size = Int64(info.st_size)
            modified = Int64(info.st_mtim.tv_sec)
            modifiedNanoseconds = Int(info.st_mtim.tv_nsec)
            changed = Int64(info.st_ctim.tv_sec)
            changedNanoseconds = Int(info.st_ctim.tv_nsec)
        }
    }

    // MARK: Reading and checking

    /// The file's bytes, at most ``fileSizeLimit``.
    private static func read(_ url: URL, role: String, request: String) throws(NetworkError) -> [UInt8] {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw failure("\(role) \(url.path) could not be read (\(String(cString: strerror(errno))))", request: request)
        }
        defer { close(descriptor) }
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure("\(role) \(url.path) could not be read (\(String(cString: strerror(errno))))", request: request)
            }
            if count == 0 { break }
            data += buffer[0..<count]
            guard data.count <= fileSizeLimit else {
                throw failure("\(role) \(url.path) is larger than \(fileSizeLimit / 1024) KB, which no certificate or key is", request: request)
            }
        }
        guard !data.isEmpty else { throw failure("\(role) \(url.path) is empty", request: request) }
        return data
    }

    /// read(2), which this type's own `read` hides.
    private static func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.read(descriptor, buffer, count)
        #elseif canImport(Musl)
        Musl.read(descriptor, buffer, count)
        #else
        Darwin.read(descriptor, buffer, count)
        #endif
    }

    /// OpenSSL's verdict on the identity, as an error saying which file and what is wrong.
    private static func check(_ kind: Kind, certificate: [UInt8], key: [UInt8]?, password: String?, paths: [URL],
                              request: String) throws(NetworkError) {
        // A password with a NUL would be cut short by C: OpenSSL would try another password than the one given.
        if let password, password.utf8.contains(0) {
            throw failure("the client certificate's password holds a NUL character", request: request)
        }
        var reason = [CChar](repeating: 0, count: 256)
        let status: nl_identity_status = if let key {
            nl_check_pem_identity(certificate, certificate.count, key, key.count, password, nil)
        } else {
            nl_check_pkcs12_identity(certificate, certificate.count, password, nil, &reason, reason.count)
        }
        let certificatePath = paths[0].path
        let keyPath = paths.count > 1 ? paths[1].path : certificatePath
        let why: String
        switch status {
        case NL_IDENTITY_OK: return
        case NL_IDENTITY_CERTIFICATE_INVALID:
            why = "the client certificate file \(certificatePath) holds no PEM certificate (-----BEGIN CERTIFICATE-----)"
        case NL_IDENTITY_KEY_INVALID:
            why = "the client certificate's private key file \(keyPath) holds no PEM private key OpenSSL can read"
        case NL_IDENTITY_KEY_NEEDS_PASSWORD:
            why = "the client certificate's private key \(keyPath) is encrypted, and no password was given"
        case NL_IDENTITY_KEY_WRONG_PASSWORD:
            why = "the client certificate's private key \(keyPath) could not be decrypted: the password is wrong"
        case NL_IDENTITY_KEY_MISMATCH:
            why = "the private key \(keyPath) does not belong to the client certificate \(certificatePath)"
        case NL_IDENTITY_PKCS12_INVALID:
            why = "the client certificate's PKCS#12 file \(certificatePath) is not a PKCS#12 archive (DER, .p12 or .pfx)"
        case NL_IDENTITY_PKCS12_NEEDS_PASSWORD:
            why = "the client certificate's PKCS#12 file \(certificatePath) needs a password, and none was given"
        case NL_IDENTITY_PKCS12_WRONG_PASSWORD:
            why = "the client certificate's PKCS#12 file \(certificatePath) could not be opened: the password is wrong"
        case NL_IDENTITY_PKCS12_UNREADABLE:
            let detail = String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).escapingControlCharacters
            why = "the client certificate's PKCS#12 file \(certificatePath) opened, but its contents could not be read"
                + (detail.isEmpty ? "" : " (\(detail))")
                + "; an archive encrypted with RC2 or 3DES needs re-exporting with AES (openssl pkcs12 -export -keypbe AES-256-CBC -certpbe AES-256-CBC)"
        case NL_IDENTITY_PKCS12_NO_KEY:
            why = "the client certificate's PKCS#12 file \(certificatePath) holds no private key"
        case NL_IDENTITY_PKCS12_NO_CERTIFICATE:
            why = "the client certificate's PKCS#12 file \(certificatePath) holds no certificate for its private key"
        default:
            why = "the client certificate could not be checked (out of memory)"
        }
        throw failure(why, request: request)
    }

    static func failure(_ reason: String, request: String) -> NetworkError {
        var context = NetworkError.Context(request: request, reason: reason + "; nothing was sent")
        context.concernsClientCertificate = true
        return .invalidCertificate(context)
    }
}
