import Foundation
import Locks
import Storage
import Synchronization

/// Group commit: concurrent requests' state changes (a challenge issued or consumed, a key registered, a counter
/// advanced) run together in one write transaction, so that committing before answering costs one commit per batch,
/// not one per request.
///
/// A caller hands in its change as a closure and blocks until the transaction holding it has committed. A caller that
/// finds fewer batches running than the engine takes at once (``SQLDatabase/concurrentWriteTransactions``: SQLite one,
/// PostgreSQL several) leads: it takes the changes queued so far, runs them in one transaction (a change that throws
/// undoes only itself), commits, and hands each waiter its own result. Then, if more changes queued meanwhile, it
/// hands the lead to the oldest of their callers not yet told to lead and returns, so no caller serves others for
/// longer than one batch (a caller told to lead whose own change another batch took leads one batch, then waits).
final class GroupCommit: Sendable {
    private let database: any SQLDatabase
    /// The most changes run in one transaction.
    let maxBatch: Int
    /// The most batches running at once.
    let maxLeaders: Int
    private let state = Mutex(Queue())

    /// What waits for the writer: the queued tickets and how many leaders run or were told to.
    private struct Queue: ~Copyable {
        var pending: [Ticket] = []
        var leaders = 0
    }

    /// One caller's change, its result once run, what its caller was told, and the gate its caller sleeps on.
    private final class Ticket: @unchecked Sendable {
        // @unchecked Sendable: `failure` is written by one thread before it sets `done` in `signals` (releasing) and
        // read by the ticket's caller only after it loads `done` (acquiring), which orders the accesses; `toldToLead`
        // is read and written under the queue's lock only.
        let change: @Sendable (any SQLConnection) throws -> Void
        let gate = DispatchSemaphore(value: 0)
        var failure: (any Error)?
        var toldToLead = false
        /// ``Signal`` bits: what the caller is to do once it stops waiting.
        let signals = Atomic<UInt8>(0)

        init(_ change: @escaping @Sendable (any SQLConnection) throws -> Void) {
            self.change = change
        }

        /// Sets `signal` and wakes the caller (a caller still looking sees it without being woken; the gate's count
        /// then only makes a later wait return at once, after which the caller looks again).
        func tell(_ signal: Signal) {
            signals.bitwiseOr(signal.rawValue, ordering: .releasing)
            gate.signal()
        }
    }

    /// What a ticket's caller is told.
    private enum Signal: UInt8 {
        /// Lead the next batch.
        case lead = 1
        /// The change ran and its batch committed (or failed): return.
        case done = 2
    }

    /// How long a waiter looks for its batch's end before it sleeps. Waking a thread on another core costs about
    /// 20 µs on the machines we measured, more than a typical batch in process takes, so a waiter first looks
    /// (giving its core away between looks) and sleeps only on a long batch; a batch sent to a database server
    /// takes longer than the look, which would only burn CPU, so its waiters sleep at once.
    let spinNanoseconds: UInt64

    /// A committer over `database`'s writer, batching at most `maxBatch` changes per transaction.
    init(database: any SQLDatabase, maxBatch: Int = 512) {
        self.database = database
        self.maxBatch = max(1, maxBatch)
        self.maxLeaders = max(1, database.concurrentWriteTransactions)
        self.spinNanoseconds = database.statementsAreRoundTrips ? 0 : 100_000
    }

    /// Runs `change` on the writer inside a transaction shared with concurrent callers, and returns its result once
    /// that transaction has committed.
    /// - Throws: what `change` throws (its own writes undone, the others' kept), or the `StorageError` of a failed
    ///   commit (every change of the batch undone): the engine's errors, which ``Store/commit(_:)`` maps.
    func write<T: Sendable>(_ change: @escaping @Sendable (any SQLConnection) throws -> T) throws -> T {
        let result = Mutex<T?>(nil)
        let ticket = Ticket { db in
            let value = try change(db)
            result.withLock { $0 = value }
        }
        try run(ticket)
        guard let value = result.withLock({ $0.take() }) else {
            throw WriteConflict("group commit finished a change without its result")
        }
        return value
    }

    private func run(_ ticket: Ticket) throws {
        var leads = state.withLock { queue in
            queue.pending.append(ticket)
            guard queue.leaders < maxLeaders else { return false }
            queue.leaders += 1
            ticket.toldToLead = true
            return true
        }
        while true {
            if leads {
                lead()
                leads = false
            }
            switch awaitSignal(ticket) {
            case .lead:
                leads = true
            case .done:
                if let failure = ticket.failure { throw failure }
                return
            }
        }
    }

    /// The signal the ticket's caller has, if any: `lead` first (taken off), then `done`.
    private func take(_ ticket: Ticket) -> Signal? {
        let signals = ticket.signals.load(ordering: .acquiring)
        if signals & Signal.lead.rawValue != 0 {
            ticket.signals.bitwiseAnd(~Signal.lead.rawValue, ordering: .acquiringAndReleasing)
            return .lead
        }
        return signals & Signal.done.rawValue != 0 ? .done : nil
    }

    /// Waits until the ticket's caller is told something: looks for `spinNanoseconds`, then sleeps (telling the
    /// worker pool, which wakes another worker meanwhile).
    private func awaitSignal(_ ticket: Ticket) -> Signal {
        let deadline = DispatchTime.now().uptimeNanoseconds &+ spinNanoseconds
        while true {
            if let signal = take(ticket) { return signal }
            if DispatchTime.now().uptimeNanoseconds >= deadline { break }
            sched_yield()
        }
        while true {
            if let signal = take(ticket) { return signal }
            BlockingRegion.run { ticket.gate.wait() }
        }
    }

    /// Runs `batch` in one transaction, each change inside its own savepoint (a change that throws undoes only
    /// itself); a failed commit fails every change of it.
    private func runWithSavepoints(_ batch: [Ticket]) {
        do {
            try database.write { db in
                for ticket in batch {
                    do {
                        try db.savepoint { try ticket.change(db) }
                    } catch {
                        ticket.failure = error
                    }
                }
            }
        } catch {
            for ticket in batch { ticket.failure = error }
        }
    }

    /// Runs `batch` in one transaction without savepoints, where each costs a round trip (PostgreSQL) and changes
    /// almost never throw (they answer refusals as values); returns false, with the whole batch rolled back, when a
    /// change threw, and the batch is then run again with savepoints (its changes run twice, as an engine's retry of
    /// a serialization failure runs them). A conflict with another transaction or a lost connection fails the batch as
    /// a failed commit does: every change of it.
    private func runWithoutSavepoints(_ batch: [Ticket]) -> Bool {
        struct ChangeThrew: Error {}
        do {
            try database.write { db in
                for ticket in batch {
                    do {
                        try ticket.change(db)
                    } catch {
                        // A conflict between transactions is the engine's to retry, a lost connection the batch's.
                        if let kind = database.failure(of: error)?.kind, kind == .busy || kind == .unavailable { throw error }
                        throw ChangeThrew()
                    }
                }
            }
            return true
        } catch is ChangeThrew {
            return false
        } catch {
            for ticket in batch { ticket.failure = error }
            return true
        }
    }

    /// Runs one batch of the queued tickets (none when other leaders took them all), then hands the lead on or gives
    /// it up.
    private func lead() {
        let batch = state.withLock { queue in
            let n = min(maxBatch, queue.pending.count)
            let batch = Array(queue.pending.prefix(n))
            queue.pending.removeFirst(n)
            return batch
        }
        if !batch.isEmpty, !database.statementsAreRoundTrips || !runWithoutSavepoints(batch) {
            runWithSavepoints(batch)
        }
        let next: Ticket? = state.withLock { queue in
            guard let next = queue.pending.first(where: { !$0.toldToLead }) else {
                queue.leaders -= 1
                return nil
            }
            next.toldToLead = true
            return next
        }
        // The next leader is told before the batch's waiters, so the writer idles as little as possible.
        next?.tell(.lead)
        for ticket in batch { ticket.tell(.done) }
    }
}
