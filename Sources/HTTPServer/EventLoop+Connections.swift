import CSystem
import Glibc
import HTTP

extension EventLoop {
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
                                    now: now)
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
            connection.machine.writable(now: now, into: &actions)
            perform(connection)
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
            connection.machine.inputEnded(now: now, into: &actions)
        } else {
            connection.machine.receive(UnsafeRawBufferPointer(rebasing: readBuffer[0..<count]), now: now, into: &actions)
        }
        perform(connection)
    }

    /// Carries out the connection's actions in order, feeding back what the socket did (which may add actions),
    /// until none are left or the connection closed.
    func perform(_ connection: Connection) {
        defer { actions.removeAll(keepingCapacity: true) }
        var index = 0
        while index < actions.count {
            let action = actions[index]
            index += 1
            switch action {
            case .write(let bytes):
                var sent = bytes.withUnsafeBytes { send(connection.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if sent < 0 {
                    guard errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR else {
                        closeConnection(connection)
                        return
                    }
                    sent = 0
                }
                connection.machine.written(sent, now: now, into: &actions)
            case .submit(var request):
                request.id = ids.next()
                request.remoteAddress = connection.remoteAddress
                submissions.append(WorkItem(request: request, loop: self, fd: connection.fd, connectionID: connection.id,
                                            started: now))
            case .reject(let error):
                core.logger.info("request rejected", [
                    "status": .int(error.status), "reason": .string(error.reason),
                    "remote": .string(connection.remoteAddress),
                ])
                let response = Response.problem(status: error.status, detail: error.reason)
                connection.machine.responded(serialize(response, keepAlive: false), keepAlive: false, now: now,
                                             into: &actions)
            case .shutdownOutput:
                shutdown(connection.fd, Int32(SHUT_WR))
            case .close:
                closeConnection(connection)
                return
            case .armTimer(let deadline):
                connection.deadline = deadline
            case .disarmTimer:
                connection.deadline = .max
            case .interest(let read, let write):
                let wanted = (read ? EPOLLIN.rawValue : 0) | (write ? EPOLLOUT.rawValue : 0)
                var event = csystem_epoll_event_make(wanted, token(connection))
                _ = epoll_ctl(epollFD, EPOLL_CTL_MOD, connection.fd, &event)
            }
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
                overloaded(connection, item.request)
            }
        }
    }

    /// The worker pool is full: 503 on the I/O thread, without running the handler.
    private func overloaded(_ connection: Connection, _ request: Request) {
        var response = Response.problem(status: 503, detail: "The server is busy; retry shortly.", requestID: request.id)
        response.headers.set("Retry-After", "1")
        let keepAlive = request.keepAlive && !stopping
        if core.logger.accessLog {
            core.logAccess(request, status: 503, bytes: response.body.count, started: now)
        }
        let bytes = serialize(response, version: request.version, keepAlive: keepAlive, headOnly: request.method == "HEAD")
        connection.machine.responded(bytes, keepAlive: keepAlive, now: now, into: &actions)
        perform(connection)
    }

    /// A worker's response arrived.
    func completed(_ connection: Connection, bytes: [UInt8], keepAlive: Bool) {
        connection.machine.responded(bytes, keepAlive: keepAlive, now: now, into: &actions)
        perform(connection)
    }

    /// The connection's deadline passed.
    func expired(_ connection: Connection) {
        connection.machine.tick(now: now, into: &actions)
        perform(connection)
    }

    /// Shutdown began: the connection finishes what is in progress, then closes.
    func shutDown(_ connection: Connection) {
        connection.machine.shutdown(now: now, into: &actions)
        perform(connection)
    }

    func closeConnection(_ connection: Connection) {
        guard Int(connection.fd) < connections.count, connections[Int(connection.fd)] === connection else { return }
        connections[Int(connection.fd)] = nil
        connectionCount -= 1
        close(connection.fd)
        core.openConnections.subtract(1, ordering: .relaxed)
    }
}
