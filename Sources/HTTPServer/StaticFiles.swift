import Glibc
import HTTP

/// Serves files below a root directory (the `Public/` assets) for a route with a catch-all parameter, e.g.
/// `router.get("/static/{path...}", StaticFiles(root: "Public").handler)`.
///
/// Sends `Content-Type` by extension, a strong `ETag` (size and modification time), `Last-Modified` and
/// `Cache-Control: public, max-age=…`, and answers `If-None-Match` / `If-Modified-Since` with 304. Paths with `..`,
/// `.` or hidden segments, empty segments, NUL or backslashes are refused, and the resolved file (symlinks
/// followed) must lie inside the resolved root; anything else is 404.
public struct StaticFiles: Sendable {
    /// The root directory with symlinks resolved, or nil when it does not exist (then every request is 404).
    public let root: String?
    /// Seconds clients may cache a file without asking again.
    public var maxAge: Int
    /// The route parameter holding the file's path below the root.
    public var parameter: String
    /// Largest file served; bigger ones are 404 (assets are small, and a response is held in memory).
    public var maxFileBytes: Int

    /// Serves files under `root` (relative to the working directory or absolute).
    public init(root: String, maxAge: Int = 3600, parameter: String = "path", maxFileBytes: Int = 16 * 1024 * 1024) {
        self.root = Self.resolve(root)
        self.maxAge = maxAge
        self.parameter = parameter
        self.maxFileBytes = maxFileBytes
    }

    /// The handler to register on a route.
    public var handler: Router.Handler {
        { request in try respond(to: request) }
    }

    /// Answers a GET or HEAD for the file named by the route parameter. Throws `HTTPError` 404 when the path is
    /// refused or no such regular file exists inside the root.
    public func respond(to request: Request) throws -> Response {
        guard let root, let relative = request.pathParameters[parameter], Self.isSafe(relative),
              let resolved = Self.resolve(root + "/" + relative), resolved.hasPrefix(root + "/") else {
            throw HTTPError(status: 404)
        }
        let fd = open(resolved, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { throw HTTPError(status: 404) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, Int(info.st_size) <= maxFileBytes else {
            throw HTTPError(status: 404)
        }
        let size = Int(info.st_size)
        let modified = info.st_mtim.tv_sec
        let etag = "\"" + String(size, radix: 16) + "-" + String(modified, radix: 16) + "-"
            + String(info.st_mtim.tv_nsec, radix: 16) + "\""
        var headers: Headers = [
            "ETag": etag,
            "Last-Modified": ResponseSerializer.httpDate(epochSeconds: modified),
            "Cache-Control": "public, max-age=\(maxAge)",
        ]
        if Self.notModified(request, etag: etag, modified: modified) {
            return Response(status: 304, headers: headers)
        }
        headers.add("Content-Type", MediaType.forPath(resolved))
        if request.method == "HEAD" {
            headers.add("Content-Length", String(size))
            return Response(status: 200, headers: headers)
        }
        guard let body = Self.read(fd, size: size) else { throw HTTPError(status: 404) }
        return Response(status: 200, headers: headers, body: body)
    }

    /// RFC 9110 §13.1.2 (weak comparison) and §13.1.3 (only without If-None-Match).
    static func notModified(_ request: Request, etag: String, modified: Int) -> Bool {
        let matches = request.headers.values("If-None-Match")
        if !matches.isEmpty {
            let opaque = etag
            for list in matches {
                for candidate in list.split(separator: ",") {
                    var tag = candidate.drop { $0 == " " || $0 == "\t" }
                    while let last = tag.last, last == " " || last == "\t" { tag = tag.dropLast() }
                    if tag == "*" { return true }
                    if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
                    if tag == opaque { return true }
                }
            }
            return false
        }
        guard let since = request.headers["If-Modified-Since"],
              let date = ResponseSerializer.parseHTTPDate(since) else { return false }
        return modified <= date
    }

    /// A relative path made only of ordinary, visible segments.
    static func isSafe(_ path: String) -> Bool {
        guard !path.isEmpty, path.utf8.count <= 1024 else { return false }
        for segment in path.split(separator: "/", omittingEmptySubsequences: false) {
            guard !segment.isEmpty, !segment.hasPrefix("."),
                  !segment.utf8.contains(where: { $0 == 0 || $0 == UInt8(ascii: "\\") || $0 < 0x20 }) else {
                return false
            }
        }
        return true
    }

    /// `realpath(3)`: the absolute path with symlinks resolved, or nil when it does not exist.
    static func resolve(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func read(_ fd: Int32, size: Int) -> [UInt8]? {
        var complete = true
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            var offset = 0
            while offset < size {
                let n = pread(fd, buffer.baseAddress.map { $0 + offset }, size - offset, off_t(offset))
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                offset += n
            }
            complete = offset == size
            initialized = offset
        }
        return complete ? bytes : nil
    }
}
