import HTTP

/// One client connection, owned by one event loop and touched only on that loop's thread: its socket, and the
/// `HTTP1Connection` that decides what happens on it (the loop feeds it events and carries out its actions).
final class Connection {
    let fd: Int32
    let id: UInt32
    let remoteAddress: String
    var machine: HTTP1Connection
    /// When the loop reports `tick` to the machine (`.max`: no timer runs).
    var deadline: UInt64

    init(fd: Int32, id: UInt32, remoteAddress: String, limits: HTTPLimits, now: UInt64) {
        self.fd = fd
        self.id = id
        self.remoteAddress = remoteAddress
        self.machine = HTTP1Connection(limits: limits, now: now)
        self.deadline = machine.deadline ?? .max
    }
}
