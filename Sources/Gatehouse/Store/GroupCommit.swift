import Foundation
import Locks
import Storage
import Synchronization

/// Group commit: concurrent requests' state changes (a challenge issued or consumed, a key registered, a counter
/// advanced) run together in one write transaction, so that committing before answering costs one commit per batch,
/// not one per request.
///
/// A caller hands in its change as a closure and blocks until the transaction holding it has committed. The first
/// caller to find no batch running leads: it takes every change queued so far, runs them in one transaction, each
/// inside its own savepoint (a change that throws undoes only itself), commits, and hands each waiter its own result.
/// Then, if more changes queued meanwhile, it hands the lead to the oldest of their callers and returns, so no
/// caller serves others for longer than one batch.
final class GroupCommit: Sendable {
    private let database: any SQLDatabase
    /// The most changes run in one transaction.
    let maxBatch: Int
    private let state = Mutex(Queue())

    /// What waits for the writer: the queued tickets and whether a leader is running a batch.
    private struct Queue: ~Copyable {
        var pending: [Ticket] = []
        var leading = false
    }

    /// One caller's change, its result once run, what its caller is to do next, and the gate its caller sleeps on.
    private final class Ticket: @unchecked Sendable {
        // @unchecked Sendable: `failure` is written by one thread before it stores `next` (releasing) and read by the
        // ticket's caller only after it loads a non-waiting `next` (acquiring), which orders the accesses.
        let change: @Sendable (any SQLConnection) throws -> Void
        let gate = DispatchSemaphore(value: 0)
        var failure: (any Error)?
        /// `Step` raw value: what the caller does once it stops waiting.
        let next = Atomic<UInt8>(Step.wait.rawValue)

        init(_ change: @escaping @Sendable (any SQLConnection) throws -> Void) {
            self.change = change
        }
    }

    /// What a ticket's caller does next.
    private enum Step: UInt8 {
        /// Keep waiting: a batch may hold the change, not yet committed.
        case wait
        /// Run the next batch (which holds this ticket, the oldest queued).
        case lead
        /// The change ran and its batch committed (or failed): return.
        case done
    }

    /// How long a waiter looks for its batch's end before it sleeps. Waking a thread on another core costs about
    /// 20 µs on the machines we measured, more than a typical batch takes, so a waiter first looks (giving its core
    /// away between looks) and sleeps only on a long batch.
    static var spinNanoseconds: UInt64 { 100_000 }

    /// A committer over `database`'s writer, batching at most `maxBatch` changes per transaction.
    init(database: any SQLDatabase, maxBatch: Int = 512) {
        self.database = database
        self.maxBatch = max(1, maxBatch)
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
        let leads = state.withLock { queue in
            queue.pending.append(ticket)
            guard !queue.leading else { return false }
            queue.leading = true
            return true
        }
        if leads || awaitTurn(ticket) == .lead {
            lead()
        }
        if let failure = ticket.failure { throw failure }
    }

    /// Waits until the ticket's caller is to lead or its batch is done: looks for `spinNanoseconds`, then sleeps
    /// (telling the worker pool, which wakes another worker meanwhile).
    private func awaitTurn(_ ticket: Ticket) -> Step {
        let deadline = DispatchTime.now().uptimeNanoseconds &+ Self.spinNanoseconds
        while true {
            if let step = Step(rawValue: ticket.next.load(ordering: .acquiring)), step != .wait { return step }
            if DispatchTime.now().uptimeNanoseconds >= deadline { break }
            sched_yield()
        }
        BlockingRegion.run { ticket.gate.wait() }
        return Step(rawValue: ticket.next.load(ordering: .acquiring)) ?? .done
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

    /// Runs one batch of the queued tickets, then hands the lead on or gives it up.
    private func lead() {
        let batch = state.withLock { queue in
            let n = min(maxBatch, queue.pending.count)
            let batch = Array(queue.pending.prefix(n))
            queue.pending.removeFirst(n)
            return batch
        }
        if !database.savepointsAreRoundTrips || !runWithoutSavepoints(batch) {
            runWithSavepoints(batch)
        }
        let next: Ticket? = state.withLock { queue in
            guard let first = queue.pending.first else {
                queue.leading = false
                return nil
            }
            return first
        }
        // The next leader is told before the batch's waiters, so the writer idles as little as possible. A waiter
        // still looking sees its step without being woken; the signal then only counts on a gate nobody waits on.
        if let next {
            next.next.store(Step.lead.rawValue, ordering: .releasing)
            next.gate.signal()
        }
        for ticket in batch {
            ticket.next.store(Step.done.rawValue, ordering: .releasing)
            ticket.gate.signal()
        }
    }
}
