/// What an acknowledged change survives (SQLite's `PRAGMA synchronous` of the writer, https://sqlite.org/pragma.html#pragma_synchronous).
public enum CommitDurability: String, Sendable, CaseIterable {
    /// Every commit is synced to disk before it returns (`FULL`): an acknowledged change, an assertion's counter or a
    /// spent nonce among them, survives a power cut or a kernel crash. Group commit pays one sync for many requests.
    case full
    /// The write-ahead log is synced at checkpoints only (`NORMAL`): a commit survives the process being killed, but
    /// the last ones roll back on a power cut or kernel crash, so captured assertions could verify again.
    case normal
}
