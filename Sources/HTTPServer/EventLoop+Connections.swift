import CSystem
import Glibc
import HTTP

extension EventLoop {
    private static let continueBytes: [UInt8] = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
    /// Parsed requests a client may have waiting before the loop stops reading its socket.
    private static let maxPipelined = 32

    /// Accepts what the listening socket has, spreading connections round-robin over the loops.
    func acceptConnections() {
        let limit = core.configuration.limits.maxConnections
        for _ in 0..<128 {
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    csystem_accept_nonblocking(listenerFD, $0, &length)
                }
            }
            if fd < 0 {
                let code = errno
                switch code {
                case EAGAIN, EWOULDBLOCK: return
                case EINTR, ECONNABORTED, EPROTO: continue
                default:
                    // Out of descriptors or memory (or the socket was shut down): stop watching the listener for a
                    // moment instead of spinning on a level-triggered event.
                    if !core.stopping.load(ordering: .relaxed) {
                        core.logger.warning("accept failed", ["errno": .int(Int(code))])
                    }
                    _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, listenerFD, nil)
                    listenerPausedUntil = now &+ 100_000_000
                    return
                }
            }
            if core.openConnections.load(ordering: .relaxed) >= limit {
                close(fd)
                continue
            }
            core.openConnections.add(1, ordering: .relaxed)
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            let remote = SocketAddress.host(of: address)
            let target = peers.isEmpty ? self : peers[nextPeer % peers.count]
            nextPeer &+= 1
            if target === self {
                adopt(fd: fd, remoteAddress: remote)
            } else {
                target.post(.adopt(fd: fd, remoteAddress: remote))
            }
        }
    }

    /// Starts serving an accepted socket on this loop.
    func adopt(fd: Int32, remoteAddress: String) {
        guard !stopping else {
            close(fd)
            core.openConnections.subtract(1, ordering: .relaxed)
            return
        }
        let id = nextID
        nextID = nextID >= 0x7FFF_FFFF ? 1 : nextID + 1
        let connection = Connection(fd: fd, id: id, remoteAddress: remoteAddress, limits: core.configuration.limits,
                                    now: now, registered: EPOLLIN.rawValue)
        var event = csystem_epoll_event_make(EPOLLIN.rawValue, token(connection))
        guard epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) == 0 else {
            close(fd)
            core.openConnections.subtract(1, ordering: .relaxed)
            return
        }
        if Int(fd) >= connections.count {
            connections.append(contentsOf: repeatElement(nil, count: Int(fd) + 1 - connections.count + 64))
        }
        connections[Int(fd)] = connection
        connectionCount += 1
    }

    private func token(_ connection: Connection) -> UInt64 {
        UInt64(connection.id) << 32 | UInt64(UInt32(bitPattern: connection.fd))
    }

    func connectionEvent(token: UInt64, mask: UInt32) {
        let fd = Int32(bitPattern: UInt32(truncatingIfNeeded: token))
        guard fd >= 0, Int(fd) < connections.count, let connection = connections[Int(fd)],
              connection.id == UInt32(truncatingIfNeeded: token >> 32) else { return }
        if mask & EPOLLERR.rawValue != 0 {
            closeConnection(connection)
            return
        }
        if mask & EPOLLOUT.rawValue != 0 {
            writable(connection)
            if connections[Int(fd)] !== connection { return }
        }
        if mask & EPOLLIN.rawValue != 0 {
            readable(connection)
        } else if mask & EPOLLHUP.rawValue != 0 {
            closeConnection(connection)
        }
    }

    private func readable(_ connection: Connection) {
        let count = recv(connection.fd, readBuffer.baseAddress, readBuffer.count, 0)
        if count < 0 {
            if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return }
            closeConnection(connection)
            return
        }
        if count == 0 {
            connection.peerClosed = true
            connection.wantRead = false
            if connection.isQuiet || connection.timer == .linger {
                closeConnection(connection)
            } else {
                updateInterest(connection)
            }
            return
        }
        if connection.parserFailed || connection.timer == .linger { return }  // discarding input
        let events = connection.parser.feed(UnsafeRawBufferPointer(rebasing: readBuffer[0..<count]))
        for event in events {
            if case .error = event { connection.parserFailed = true }
            connection.queue.append(event)
        }
        advance(connection)
    }

    /// Answers queued events in order while nothing is in flight or being written; then settles timers, interest
    /// and closing.
    func advance(_ connection: Connection) {
        while !connection.inFlight && !connection.hasOutput && !connection.closeAfterWrite,
              let event = connection.popEvent() {
            switch event {
            case .expectContinue:
                guard write(connection, Self.continueBytes) else { return }
            case .request(var request):
                request.id = ids.next()
                request.remoteAddress = connection.remoteAddress
                let item = WorkItem(request: request, loop: self, fd: connection.fd, connectionID: connection.id,
                                    started: now)
                connection.served = true
                connection.inFlight = true
                submissions.append(item)
            case .error(let error):
                connection.closeAfterWrite = true
                connection.queue.removeAll()
                connection.queueHead = 0
                core.logger.info("request rejected", [
                    "status": .int(error.status), "reason": .string(error.reason),
                    "remote": .string(connection.remoteAddress),
                ])
                let response = Response.problem(status: error.status, detail: error.reason)
                guard write(connection, serialize(response, keepAlive: false)) else { return }
            }
        }
        if connection.isQuiet && (connection.closeAfterWrite || connection.peerClosed || stopping) {
            finish(connection)
            return
        }
        settleTimer(connection)
        connection.wantRead = !connection.parserFailed && !connection.peerClosed
            && connection.pendingCount < Self.maxPipelined
        updateInterest(connection)
    }

    /// Picks the timer for the connection's phase; a deadline already running for the same phase is kept, so a
    /// client trickling bytes cannot push it back.
    private func settleTimer(_ connection: Connection) {
        if connection.inFlight {
            connection.setTimer(.none, 0)
            return
        }
        if connection.hasOutput { return }  // the write timer runs
        switch connection.parser.phase {
        case .idle where connection.served:
            if connection.timer != .idle { connection.setTimer(.idle, now &+ idleNanos) }
        case .idle, .head:
            // A new connection gets the header timeout from its first moment.
            if connection.timer != .header { connection.setTimer(.header, now &+ headerNanos) }
        case .body:
            if connection.timer != .body { connection.setTimer(.body, now &+ bodyNanos) }
        case .failed:
            break
        }
    }

    /// Hands this round's requests to the worker pool in one go; those that do not fit get 503.
    func submitRequests() {
        while !submissions.isEmpty {
            let batch = submissions
            submissions.removeAll(keepingCapacity: true)
            let taken = pool.submit(batch)
            for item in batch.dropFirst(taken) {
                guard Int(item.fd) < connections.count, let connection = connections[Int(item.fd)],
                      connection.id == item.connectionID else { continue }
                connection.inFlight = false
                guard overloaded(connection, item.request) else { continue }
                advance(connection)
            }
        }
    }

    /// The worker pool is full: 503 on the I/O thread, without running the handler.
    private func overloaded(_ connection: Connection, _ request: Request) -> Bool {
        var response = Response.problem(status: 503, detail: "The server is busy; retry shortly.", requestID: request.id)
        response.headers.set("Retry-After", "1")
        let keepAlive = request.keepAlive && !stopping
        if !keepAlive { connection.closeAfterWrite = true }
        if core.logger.accessLog {
            core.logAccess(request, status: 503, bytes: response.body.count, started: now)
        }
        return write(connection, serialize(response, version: request.version, keepAlive: keepAlive,
                                                headOnly: request.method == "HEAD"))
    }

    /// A worker's response arrived.
    func completed(_ connection: Connection, bytes: [UInt8], keepAlive: Bool) {
        connection.inFlight = false
        if !keepAlive || stopping {
            connection.closeAfterWrite = true
            connection.queue.removeAll()
            connection.queueHead = 0
        }
        guard write(connection, bytes) else { return }
        advance(connection)
    }

    /// Sends bytes now if possible, queueing what the kernel does not take. False when the connection was closed.
    @discardableResult
    func write(_ connection: Connection, _ bytes: [UInt8]) -> Bool {
        guard !connection.hasOutput else {
            connection.out.append(contentsOf: bytes)
            return true
        }
        var sent = bytes.withUnsafeBytes { send(connection.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if sent == bytes.count { return true }
        if sent < 0 {
            guard errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR else {
                closeConnection(connection)
                return false
            }
            sent = 0
        }
        connection.out = bytes
        connection.outOffset = sent
        connection.wantWrite = true
        connection.setTimer(.write, now &+ bodyNanos)
        updateInterest(connection)
        return true
    }

    private func writable(_ connection: Connection) {
        guard connection.hasOutput else {
            connection.wantWrite = false
            updateInterest(connection)
            return
        }
        let sent = connection.out.withUnsafeBytes { buffer in
            send(connection.fd, buffer.baseAddress.map { $0 + connection.outOffset },
                 buffer.count - connection.outOffset, Int32(MSG_NOSIGNAL))
        }
        if sent < 0 {
            if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return }
            closeConnection(connection)
            return
        }
        connection.outOffset += sent
        connection.setTimer(.write, now &+ bodyNanos)
        if !connection.hasOutput {
            connection.out = []
            connection.outOffset = 0
            connection.wantWrite = false
            connection.setTimer(.none, 0)
            advance(connection)
        }
    }

    /// A connection's timer ran out.
    func expired(_ connection: Connection) {
        switch connection.timer {
        case .header where connection.parser.phase == .head && !connection.hasOutput && !connection.inFlight:
            // RFC 9110 §15.5.9: tell the client why before closing.
            connection.closeAfterWrite = true
            connection.parserFailed = true
            connection.queue.removeAll()
            connection.queueHead = 0
            connection.setTimer(.none, 0)
            let response = Response.problem(status: 408, detail: "The request head took too long to arrive.")
            guard write(connection, serialize(response, keepAlive: false)) else { return }
            advance(connection)
        default:
            closeConnection(connection)
        }
    }

    /// Everything is answered and the connection must end: shut down our side and drain the client's last bytes
    /// briefly, so that unread input does not turn the close into a reset that destroys the response.
    private func finish(_ connection: Connection) {
        if connection.peerClosed || stopping {
            closeConnection(connection)
            return
        }
        shutdown(connection.fd, Int32(SHUT_WR))
        connection.parserFailed = true
        connection.setTimer(.linger, now &+ Self.lingerNanos)
        connection.wantRead = true
        connection.wantWrite = false
        updateInterest(connection)
    }

    func closeConnection(_ connection: Connection) {
        guard Int(connection.fd) < connections.count, connections[Int(connection.fd)] === connection else { return }
        connections[Int(connection.fd)] = nil
        connectionCount -= 1
        close(connection.fd)
        core.openConnections.subtract(1, ordering: .relaxed)
    }

    /// Registers the epoll events the connection wants now, if they changed.
    func updateInterest(_ connection: Connection) {
        let wanted = (connection.wantRead ? EPOLLIN.rawValue : 0) | (connection.wantWrite ? EPOLLOUT.rawValue : 0)
        guard wanted != connection.registered else { return }
        var event = csystem_epoll_event_make(wanted, token(connection))
        if epoll_ctl(epollFD, EPOLL_CTL_MOD, connection.fd, &event) == 0 {
            connection.registered = wanted
        }
    }
}
