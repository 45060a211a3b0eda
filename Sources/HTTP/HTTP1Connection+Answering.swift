extension HTTP1Connection {
    /// Answers queued events in order while nothing is awaited or being written; then closes, or settles the
    /// timer and read interest.
    mutating func advance(now: UInt64, into actions: inout [Action]) {
        guard ending == .open || ending == .closing else { return }
        while !awaitingResponse && !hasOutput && ending == .open, let event = popEvent() {
            switch event {
            case .expectContinue:
                send(Self.continueBytes, into: &actions)
            case .request(let request):
                served = true
                awaitingResponse = true
                actions.append(.submit(request))
            case .error(let error):
                ending = .closing
                clearQueue()
                awaitingResponse = true
                actions.append(.reject(error))
            }
        }
        if isQuiet && (ending == .closing || input == .ended || shuttingDown) {
            finish(now: now, into: &actions)
            return
        }
        settleTimer(now: now)
        wantRead = input == .reading && pendingCount < Self.maxPipelined
    }

    /// Picks the timer for the connection's phase; a deadline already running for the same phase is kept.
    mutating func settleTimer(now: UInt64) {
        if awaitingResponse {
            setTimer(.none, 0)
            return
        }
        if hasOutput { return }  // the write timer runs, or the write is being reported
        switch parser.phase {
        case .idle where served:
            if timer != .idle { setTimer(.idle, now &+ idleNanos) }
        case .idle, .head:
            // A new connection gets the header timeout from its first moment.
            if timer != .header { setTimer(.header, now &+ headerNanos) }
        case .body:
            if timer != .body { setTimer(.body, now &+ bodyNanos) }
        case .failed:
            break
        }
    }

    /// Everything is answered and the connection must end: close at once after the client's EOF or during
    /// shutdown, otherwise shut down output and linger.
    mutating func finish(now: UInt64, into actions: inout [Action]) {
        if input == .ended || shuttingDown {
            close(into: &actions)
            return
        }
        actions.append(.shutdownOutput)
        ending = .lingering
        input = .discarding
        setTimer(.linger, now &+ Self.lingerNanoseconds)
        wantRead = true
        wantWrite = false
        report(into: &actions)
    }

    /// Ends the machine: `.close` is its last action.
    mutating func close(into actions: inout [Action]) {
        ending = .closed
        clearQueue()
        output = []
        outputOffset = 0
        writeOutstanding = false
        awaitingResponse = false
        setTimer(.none, 0)
        actions.append(.close)
    }

    /// Queues response bytes; they go out at once unless earlier ones are still waiting for the socket.
    mutating func send(_ bytes: [UInt8], into actions: inout [Action]) {
        guard !bytes.isEmpty else { return }
        if hasOutput {
            output.append(contentsOf: bytes)
            return
        }
        output = bytes
        outputOffset = 0
        if !writeOutstanding { emitWrite(into: &actions) }
    }

    mutating func emitWrite(into actions: inout [Action]) {
        writeOutstanding = true
        actions.append(.write(output[outputOffset...]))
    }

    mutating func setTimer(_ timer: Timer, _ deadline: UInt64) {
        self.timer = timer
        deadlineNanos = deadline
    }

    mutating func clearQueue() {
        queue.removeAll(keepingCapacity: true)
        queueHead = 0
    }

    mutating func popEvent() -> ParseEvent? {
        guard queueHead < queue.count else { return nil }
        let event = queue[queueHead]
        queueHead += 1
        if queueHead == queue.count {
            queue.removeAll(keepingCapacity: true)
            queueHead = 0
        }
        return event
    }

    /// Tells the loop about a deadline or interest that changed since it last heard.
    mutating func report(into actions: inout [Action]) {
        guard ending != .closed else { return }
        let deadline = self.deadline
        if deadline != reportedDeadline {
            reportedDeadline = deadline
            actions.append(deadline.map { .armTimer(deadline: $0) } ?? .disarmTimer)
        }
        if wantRead != reportedRead || wantWrite != reportedWrite {
            reportedRead = wantRead
            reportedWrite = wantWrite
            actions.append(.interest(read: wantRead, write: wantWrite))
        }
    }
}
