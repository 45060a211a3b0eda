import Foundation

/// Polls `condition` every millisecond until it holds or `seconds` pass; returns the seconds it took, nil when it
/// never held. The one way the tests wait for a state (never a sleep standing in for one): deadlines are generous,
/// as a loaded machine may take long, and a test asserts that the state came, not how fast.
@discardableResult
public func waitUntil(seconds: Double = 20, _ condition: () throws -> Bool) rethrows -> Double? {
    let start = ContinuousClock.now
    let deadline = start + .milliseconds(Int(seconds * 1000))
    while true {
        if try condition() {
            let elapsed = ContinuousClock.now - start
            return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        }
        if ContinuousClock.now >= deadline { return nil }
        usleep(1000)
    }
}
