import Attestation
import Testing

/// docs/device-api.md's counter rules, as a table: (window, counter) → judgement.
@Suite struct CounterWindowTests {
    static func window(_ newest: UInt32, seen: [UInt32] = []) -> CounterWindow {
        CounterWindow(newest: newest, seenBelow: seen.reduce(0) { $0 | 1 << (newest - 1 - $1) })
    }

    static let table: [(window: CounterWindow, counter: UInt32, expected: CounterJudgement)] = [
        (.fresh, 0, .reused),
        (.fresh, 1, .accept(window(1, seen: [0]))),
        (.fresh, 5, .accept(window(5, seen: [0]))),
        (window(1, seen: [0]), 2, .accept(window(2, seen: [0, 1]))),
        (window(10), 10, .reused),
        (window(10), 9, .accept(window(10, seen: [9]))),
        (window(10, seen: [9]), 9, .reused),
        (window(10), 0, .accept(window(10, seen: [0]))),
        (window(100), 69, .accept(window(100, seen: [69]))),
        (window(100), 68, .regression),
        (window(100), 0, .regression),
        (window(100, seen: [99, 69]), 69, .reused),
        (window(100, seen: [99]), 101, .accept(window(101, seen: [100, 99]))),
        (window(100, seen: [69]), 101, .accept(window(101, seen: [100, 69]))),  // 69 = N - 32 now: kept, never consulted
        (window(100, seen: [69]), 102, .accept(window(102, seen: [100]))),  // 69 shifted out
        (window(100, seen: [99]), 132, .accept(window(132, seen: [100]))),  // 100 lands at the last bit
        (window(100, seen: [99]), 133, .accept(window(133))),  // more than 32 ahead: nothing kept
        (window(100, seen: [99]), UInt32.max, .accept(window(UInt32.max))),
        (window(UInt32.max), UInt32.max, .reused),
        (window(UInt32.max), UInt32.max - 31, .accept(window(UInt32.max, seen: [UInt32.max - 31]))),
        (window(UInt32.max), UInt32.max - 32, .regression),
        (window(31), 0, .accept(window(31, seen: [0]))),
        (window(32), 0, .regression),
        (CounterWindow(newest: 40, seenBelow: UInt32.max), 39, .reused),
        (CounterWindow(newest: 40, seenBelow: UInt32.max), 9, .reused),
        (CounterWindow(newest: 40, seenBelow: UInt32.max), 8, .regression),
    ]

    @Test(arguments: table.indices) func judges(index: Int) {
        let (window, counter, expected) = Self.table[index]
        #expect(window.judge(counter) == expected, "newest \(window.newest), counter \(counter)")
    }

    /// Out of order inside the window: each counter once, in any order, is accepted once; a second time, reused.
    @Test func acceptsEachCounterOnceInAnyOrder() {
        var window = CounterWindow.fresh
        let order: [UInt32] = [5, 3, 4, 1, 2, 40, 20, 9, 39, 38]
        for counter in order {
            guard case .accept(let next) = window.judge(counter) else {
                Issue.record("\(counter) not accepted")
                return
            }
            window = next
        }
        for counter in order + [0] where window.newest - counter < 32 {
            #expect(window.judge(counter) == .reused, "\(counter)")
        }
        #expect(window.judge(8) == .regression)
        #expect(window.judge(10) == .accept(CounterWindow(newest: 40, seenBelow: window.seenBelow | 1 << 29)))
    }
}
