import Glibc
import Gatehouse

/// One `gatehouse serve` per database: an exclusive `flock` on `<database>.lock`, held until the process ends.
///
/// The server answers environments and tokens from memory and forgets them only when it writes them itself, so a
/// second server on the same file would serve the first one's changes late. The lock file holds the owner's pid,
/// for the message the second one prints.
enum ServerLock {
    /// Takes the lock for `database`, or throws naming the server that holds it.
    static func acquire(database: String) throws {
        let path = database + ".lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw ConfigurationError("cannot open \(path): \(String(cString: strerror(errno)))") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            var buffer = [UInt8](repeating: 0, count: 32)
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            let owner = count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : "?"
            close(fd)
            throw ConfigurationError("another gatehouse serve (pid \(owner)) is using \(database); run one server per database")
        }
        _ = ftruncate(fd, 0)
        let pid = Array(String(getpid()).utf8)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        // The descriptor stays open (and the lock held) until the process exits.
    }
}
