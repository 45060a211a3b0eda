import SQLite
import Storage
import Testing

/// The checkpointer looks every `busy` while the write-ahead log changes and backs off to `idle` while it does not.
@Suite("Checkpoint pacing")
struct CheckpointPacingTests {
    @Test func backsOffWhileTheLogIsQuietAndReturnsToBusyOnWrites() {
        var pacing = CheckpointPacing(busy: 0.02, idle: 0.5)
        // Writes: the log grows between looks.
        #expect(pacing.next(walPages: 10, copiedPages: 10) == 0.02)
        #expect(pacing.next(walPages: 40, copiedPages: 40) == 0.02)
        // Quiet: the same log, all of it copied.
        let quiet = (0..<6).map { _ in pacing.next(walPages: 40, copiedPages: 40) }
        #expect(quiet == [0.04, 0.08, 0.16, 0.32, 0.5, 0.5])
        // A writer restarted the log from its start: changed, so busy again.
        #expect(pacing.next(walPages: 3, copiedPages: 3) == 0.02)
    }

    @Test func aLogNotFullyCopiedKeepsTheBusyPace() {
        var pacing = CheckpointPacing(busy: 0.02, idle: 0.5)
        // A reader holds back part of the log: the same size, not all copied.
        for _ in 0..<4 { #expect(pacing.next(walPages: 50, copiedPages: 20) == 0.02) }
    }

    @Test func aFailedLookIsRetriedAtTheBusyPace() {
        var pacing = CheckpointPacing(busy: 0.02, idle: 0.5)
        _ = pacing.next(walPages: 5, copiedPages: 5)
        #expect(pacing.next(walPages: 5, copiedPages: 5) == 0.04)
        #expect(pacing.next(walPages: nil, copiedPages: nil) == 0.02)
        // The next look has nothing to compare with, so it stays busy once.
        #expect(pacing.next(walPages: 5, copiedPages: 5) == 0.02)
        #expect(pacing.next(walPages: 5, copiedPages: 5) == 0.04)
    }
}
