extension HTTP1Connection {
    /// Applies one event at monotonic time `now`, appending the resulting actions to `actions`.
    public mutating func handle(_ event: Event, now: UInt64, into actions: inout [Action]) {
        switch event {
        case .received(let bytes): bytes.withUnsafeBytes { receive($0, now: now, into: &actions) }
        case .inputEnded: inputEnded(now: now, into: &actions)
        case .responded(let bytes, let keepAlive): responded(bytes, keepAlive: keepAlive, now: now, into: &actions)
        case .writable: writable(now: now, into: &actions)
        case .written(let count): written(count, now: now, into: &actions)
        case .tick: tick(now: now, into: &actions)
        case .shutdown: shutdown(now: now, into: &actions)
        }
    }

    /// Applies one event and returns its actions (for tests and tools; the loop reuses one action buffer).
    public mutating func handle(_ event: Event, now: UInt64) -> [Action] {
        var actions: [Action] = []
        handle(event, now: now, into: &actions)
        return actions
    }

    /// The socket delivered `bytes`: parse them and answer what they complete. Ignored while input is dropped
    /// (after a parse error, while closing or lingering).
    public mutating func receive(_ bytes: UnsafeRawBufferPointer, now: UInt64, into actions: inout [Action]) {
        guard ending == .open, input == .reading else { return }
        for event in parser.feed(bytes) {
            if case .error = event { input = .discarding }
            queue.append(event)
        }
        advance(now: now, into: &actions)
        report(into: &actions)
    }

    /// The client sent EOF: answer what is queued, then close (at once when nothing is).
    public mutating func inputEnded(now: UInt64, into actions: inout [Action]) {
        guard ending != .closed else { return }
        input = .ended
        wantRead = false
        if isQuiet || ending == .lingering {
            close(into: &actions)
            return
        }
        report(into: &actions)
    }

    /// The awaited response is ready: write it, then go on with the next request (or close when it is not
    /// keep-alive, or the server is shutting down). Ignored when no response is awaited.
    public mutating func responded(_ bytes: [UInt8], keepAlive: Bool, now: UInt64, into actions: inout [Action]) {
        guard ending != .closed, awaitingResponse else { return }
        awaitingResponse = false
        if !keepAlive || shuttingDown {
            if ending == .open { ending = .closing }
            clearQueue()
        }
        send(bytes, into: &actions)
        advance(now: now, into: &actions)
        report(into: &actions)
    }

    /// The socket can take more output: write what is left, or stop watching for writability.
    public mutating func writable(now: UInt64, into actions: inout [Action]) {
        guard ending != .closed, !writeOutstanding else { return }
        if hasOutput {
            emitWrite(into: &actions)
        } else {
            wantWrite = false
            report(into: &actions)
        }
    }

    /// The kernel took `count` bytes of the last `.write` (0 when it would block). Bytes left wait for `writable`
    /// under the write timeout, which restarts with every progress; once all are out the next request is answered.
    public mutating func written(_ count: Int, now: UInt64, into actions: inout [Action]) {
        guard ending != .closed, writeOutstanding else { return }
        writeOutstanding = false
        outputOffset += min(max(count, 0), output.count - outputOffset)
        if hasOutput {
            if count > 0 || timer != .write { setTimer(.write, now &+ bodyNanos) }
            wantWrite = true
        } else {
            output = []
            outputOffset = 0
            wantWrite = false
            if timer == .write { setTimer(.none, 0) }
            advance(now: now, into: &actions)
        }
        report(into: &actions)
    }

    /// The clock reached `now`: a deadline that passed ends the connection, after a 408 when part of a request
    /// head arrived (RFC 9110 §15.5.9).
    public mutating func tick(now: UInt64, into actions: inout [Action]) {
        guard ending != .closed, timer != .none, now >= deadlineNanos else { return }
        if timer == .header && parser.phase == .head && !hasOutput && !awaitingResponse && ending == .open {
            ending = .closing
            input = .discarding
            clearQueue()
            setTimer(.none, 0)
            awaitingResponse = true
            actions.append(.reject(HTTPParseError(status: 408, reason: "The request head took too long to arrive.")))
            report(into: &actions)
        } else {
            close(into: &actions)
        }
    }

    /// The server is shutting down: drop unanswered requests, close now when nothing is in progress, otherwise
    /// after the response in progress (which goes out with `Connection: close`).
    public mutating func shutdown(now: UInt64, into actions: inout [Action]) {
        guard ending != .closed else { return }
        shuttingDown = true
        clearQueue()
        if ending == .open { ending = .closing }
        if isQuiet {
            close(into: &actions)
            return
        }
        report(into: &actions)
    }
}
