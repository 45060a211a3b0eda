import Glibc

/// The 32-byte key that seals secrets at rest (``SecretBox``): from `GATEHOUSE_MASTER_KEY` or from a key file.
public enum MasterKey {
    /// The key length in bytes.
    public static let length = SecretBox.keyLength
    /// Largest key file we read; a real one is 45 bytes.
    private static let maximumFileSize = 4096

    /// From GATEHOUSE_MASTER_KEY (base64 of 32 bytes) when `environmentValue` is non-nil, else from `keyFilePath`,
    /// created with mode 0600 (32 random bytes, base64 text) when absent.
    ///
    /// Surrounding whitespace (a trailing newline) is ignored; both Base64 alphabets are accepted. A new key file
    /// is written to a temporary file and linked into place, so a concurrent start-up never reads half a key and
    /// two processes never create different keys. Symbolic links are followed (secret mounts use them).
    ///
    /// - Throws: ``MasterKeyError`` saying what to do when the value is empty or not Base64, does not decode to 32 bytes,
    ///   the key file is readable or writable by group or others, is not a regular file, or cannot be read
    ///   or created.
    public static func load(environmentValue: String?, keyFilePath: String) throws -> [UInt8] {
        if let environmentValue {
            guard !environmentValue.trimmingASCIIWhitespace().isEmpty else {
                throw MasterKeyError("GATEHOUSE_MASTER_KEY is set but empty; set it to the base64 of 32 random bytes "
                    + "(for example `openssl rand -base64 32`), or unset it to use the key file \(keyFilePath)")
            }
            return try decode(environmentValue, source: "GATEHOUSE_MASTER_KEY",
                              fix: "set it to the base64 of 32 random bytes (for example `openssl rand -base64 32`)")
        }
        for _ in 0..<3 {
            if let key = try readKeyFile(keyFilePath) { return key }
            if let key = try createKeyFile(keyFilePath) { return key }
            // Another process created the file between our read and our link: read it again.
        }
        throw MasterKeyError("key file \(keyFilePath) keeps appearing and disappearing; check what else writes it")
    }

    private static func decode(_ text: String, source: String, fix: String) throws -> [UInt8] {
        let trimmed = text.trimmingASCIIWhitespace()
        guard let key = Base64.decode(trimmed) else {
            throw MasterKeyError("\(source) is not valid base64; \(fix)")
        }
        guard key.count == length else {
            throw MasterKeyError("\(source) decodes to \(key.count) bytes, not \(length); \(fix)")
        }
        return key
    }

    /// The key in the file, or nil when there is no file.
    private static func readKeyFile(_ path: String) throws -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 {
            let code = errno
            if code == ENOENT { return nil }
            throw MasterKeyError("cannot open key file \(path): \(errorText(code)); check the path and its permissions")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw MasterKeyError("cannot stat key file \(path): \(errorText(errno))")
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw MasterKeyError("key file \(path) is not a regular file; point the key file at a file holding the base64 key")
        }
        let mode = status.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw MasterKeyError("key file \(path) has mode \(String(mode, radix: 8)), open to group or others; run `chmod 600 \(path)`")
        }
        var contents: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 512)
        while contents.count <= maximumFileSize {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw MasterKeyError("cannot read key file \(path): \(errorText(errno))")
            }
            if count == 0 { break }
            contents += chunk[0..<count]
        }
        guard contents.count <= maximumFileSize else {
            throw MasterKeyError("key file \(path) is larger than \(maximumFileSize) bytes; it should hold only the base64 key")
        }
        return try decode(String(decoding: contents, as: UTF8.self), source: "key file \(path)",
                          fix: "restore the original key file, or (only if nothing was sealed yet) delete it to create a new one")
    }

    /// Creates the key file with a new random key; nil when another process created it first.
    private static func createKeyFile(_ path: String) throws -> [UInt8]? {
        let key: [UInt8]
        do {
            key = try SecureRandom.bytes(length)
        } catch {
            throw MasterKeyError("cannot generate a master key: \(error)")
        }
        let suffix = Hex.encode((try? SecureRandom.bytes(6)) ?? [UInt8(truncatingIfNeeded: getpid())])
        let temporaryPath = "\(path).\(suffix).tmp"
        let descriptor = open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw MasterKeyError("cannot create key file \(path): \(errorText(errno)); check that its directory exists and is writable")
        }
        // Whether or not the link below succeeds, the temporary name goes away (after a link, `path` remains).
        defer { unlink(temporaryPath) }
        let text = Array((Base64.encode(key) + "\n").utf8)
        let writeError: Int32? = text.withUnsafeBytes { buffer in
            // umask can only remove bits; fchmod makes the mode exactly 0600 regardless.
            guard fchmod(descriptor, 0o600) == 0 else { return errno }
            var offset = 0
            while offset < buffer.count {
                let count = write(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
                if count < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += count
            }
            return fsync(descriptor) == 0 ? nil : errno
        }
        close(descriptor)
        if let writeError {
            throw MasterKeyError("cannot write key file \(path): \(errorText(writeError))")
        }
        // link() never replaces an existing file, so exactly one process's key wins.
        if link(temporaryPath, path) != 0 {
            let code = errno
            if code == EEXIST { return nil }
            throw MasterKeyError("cannot create key file \(path): \(errorText(code))")
        }
        return key
    }

    private static func errorText(_ code: Int32) -> String {
        strerror(code).map { String(cString: $0) } ?? "error \(code)"
    }
}

extension String {
    /// The string without leading and trailing spaces, tabs, carriage returns and newlines.
    fileprivate func trimmingASCIIWhitespace() -> String {
        let bytes = Array(utf8)
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }
}
