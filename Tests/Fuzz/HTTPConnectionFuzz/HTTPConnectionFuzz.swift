// libFuzzer target for the HTTP/1 connection state machine. Built with `-DFUZZING` and `--sanitize=fuzzer` (see
// `make fuzz-connection`), libFuzzer supplies `main` and calls `LLVMFuzzerTestOneInput`; in a plain build the `main`
// below replays files through the same checks.
//
// The input is decoded as a sequence of events (see `decode`); a loop stand-in carries out the actions (a socket
// that takes a fuzzed number of bytes per write, rejections answered at once) and every invariant is checked after
// every action. At the end the client sends EOF and everything drains: the connection must close.
import HTTP
import FuzzReplay

/// Small limits, so that short inputs reach every limit path; timeouts of 1, 2 and 3 seconds.
let fuzzLimits = HTTPLimits(maxRequestLineBytes: 200, maxHeaderBytes: 400, maxHeaderCount: 8, maxBodyBytes: 600,
                            maxChunkSizeLineBytes: 40, headerTimeout: .seconds(1), bodyTimeout: .seconds(2),
                            keepAliveIdleTimeout: .seconds(3))

/// libFuzzer's entry point: runs one input; any broken invariant traps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var loop = Loop()
    loop.play(UnsafeBufferPointer(start: data, count: size))
    return 0
}

/// The event loop's part, with the invariants.
struct Loop {
    typealias Action = HTTP1Connection.Action
    var machine = HTTP1Connection(limits: fuzzLimits, now: 0)
    var now: UInt64 = 0
    var room = Int.max
    var closed = false
    var outputShut = false
    var awaiting = false
    var deadline: UInt64?
    var interest = (read: true, write: false)
    /// The last byte the socket took (a request may be submitted only after a complete response).
    var lastSent: UInt8?

    init() { deadline = machine.deadline }

    /// Decodes events from the input, one opcode byte each (with operands after it), and applies them.
    mutating func play(_ input: UnsafeBufferPointer<UInt8>) {
        var i = 0
        func operand() -> Int {
            defer { i += 1 }
            return i < input.count ? Int(input[i]) : 0
        }
        while i < input.count && !closed {
            let op = operand()
            switch op % 8 {
            case 0, 1:
                let count = min(op >> 2, input.count - i)
                apply(.received(Array(input[i..<(i + count)])))
                i += count
            case 2:
                apply(.inputEnded)
            case 3:
                let body = Array(repeating: UInt8(ascii: "r"), count: op >> 4) + [UInt8(ascii: ";")]
                apply(.responded(body, keepAlive: op & 8 == 0))
            case 4:
                let b = operand()
                room = b == 255 ? .max : b
                apply(.writable)
            case 5:
                let b = operand()
                if b & 0x80 != 0, let deadline {
                    now = max(now, deadline &+ UInt64(b & 3) &- 1)
                } else {
                    now &+= UInt64(b) &* 20_000_000
                }
                apply(.tick)
            case 6:
                apply(op & 0x80 != 0 ? .shutdown : .written(op >> 3))
            default:
                room = op >> 3 == 0 ? .max : op >> 3
            }
        }
        // The client leaves; workers answer, the socket drains, the clock runs: the connection must close.
        apply(.inputEnded)
        for _ in 0..<100 where !closed {
            room = .max
            if machine.isAwaitingResponse {
                apply(.responded([UInt8(ascii: ";")], keepAlive: true))
            } else if interest.write {
                apply(.writable)
            } else {
                now = max(now, deadline ?? now)
                apply(.tick)
            }
        }
        precondition(closed, "not closed after EOF and drain")
    }

    mutating func apply(_ event: HTTP1Connection.Event) {
        if case .responded = event { awaiting = false }
        var actions = machine.handle(event, now: now)
        var index = 0
        while index < actions.count {
            let action = actions[index]
            index += 1
            precondition(!closed, "an action after close")
            switch action {
            case .write(let bytes):
                precondition(!bytes.isEmpty && !outputShut, "empty write, or write after shutting output down")
                let taken = min(room, bytes.count)
                room -= taken
                if taken > 0 { lastSent = bytes[bytes.startIndex + taken - 1] }
                actions += machine.handle(.written(taken), now: now)
            case .submit(let request):
                precondition(!awaiting, "two requests in flight")
                precondition(lastSent == nil || lastSent == UInt8(ascii: ";") || lastSent == UInt8(ascii: "\n"),
                             "a request submitted while output was pending")
                precondition(request.body.count <= fuzzLimits.maxBodyBytes, "body over the limit")
                awaiting = true
            case .reject(let error):
                precondition(!awaiting, "a rejection while a request is in flight")
                precondition([400, 408, 413, 414, 417, 431, 501, 505].contains(error.status), "unexpected status")
                actions += machine.handle(.responded([UInt8(ascii: ";")], keepAlive: false), now: now)
            case .shutdownOutput: outputShut = true
            case .close: closed = true
            case .armTimer(let deadline):
                precondition(deadline >= now, "a deadline in the past")
                self.deadline = deadline
            case .disarmTimer: deadline = nil
            case .interest(let read, let write): interest = (read, write)
            }
        }
        precondition(machine.isClosed == closed, "closed without .close")
        guard !closed else { return }
        precondition(machine.deadline == deadline && machine.interest == interest, "deadline or interest not reported")
        precondition(machine.isAwaitingResponse || deadline != nil, "waiting on the peer without a timer")
    }
}

#if !FUZZING
/// Replays the files named on the command line through the checks (no fuzzing engine).
@main
struct HTTPConnectionFuzzReplay {
    static func main() {
        replay(arguments: CommandLine.arguments.dropFirst()) { input in
            var loop = Loop()
            input.withUnsafeBufferPointer { loop.play($0) }
        }
    }
}
#endif
