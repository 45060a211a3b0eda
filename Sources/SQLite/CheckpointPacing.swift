import Foundation

/// How long the background checkpointer waits before its next look at the write-ahead log: `busy` after a look that
/// found the log changed (commits happened, so their pages are copied soon and commits never stop to do it), then
/// twice as long after each look that found it unchanged and fully copied, up to `idle`. An idle server so wakes
/// `1 / idle` times a second instead of `1 / busy`; the first look after writes resume comes within `idle`.
public struct CheckpointPacing: Sendable {
    public let busy: TimeInterval
    public let idle: TimeInterval
    private var wait: TimeInterval
    /// The log's size in pages at the last look (-1 before the first).
    private var lastWALPages = -1

    /// A pacing starting at `busy`.
    public init(busy: TimeInterval = 0.02, idle: TimeInterval = 0.5) {
        self.busy = busy
        self.idle = max(busy, idle)
        wait = busy
    }

    /// The wait after a look that found `walPages` pages in the log, `copiedPages` of them now in the database file
    /// (what `PRAGMA wal_checkpoint(PASSIVE)` answers); nil after a look that failed, which is retried at `busy`.
    public mutating func next(walPages: Int?, copiedPages: Int?) -> TimeInterval {
        guard let walPages, let copiedPages else {
            lastWALPages = -1
            wait = busy
            return wait
        }
        let quiet = walPages == lastWALPages && copiedPages >= walPages
        lastWALPages = walPages
        wait = quiet ? min(idle, wait * 2) : busy
        return wait
    }
}
