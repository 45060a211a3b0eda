import Testing
@testable import Gatehouse

/// The read cache keeps what was read, forgets on invalidation, and never keeps a value read across a write.
@Suite struct ReadCacheTests {
    @Test func keepsWhatWasReadUntilInvalidated() {
        let cache = ReadCache<String, Int>(limit: 10)
        var reads = 0
        #expect(cache.value("a") { reads += 1; return 1 } == 1)
        #expect(cache.value("a") { reads += 1; return 2 } == 1)
        #expect(reads == 1)
        cache.invalidate()
        #expect(cache.value("a") { reads += 1; return 3 } == 3)
        #expect(reads == 2)
    }

    @Test func aValueReadWhileAWriteEndedIsNotKept() {
        let cache = ReadCache<String, Int>(limit: 10)
        // The write ends (and invalidates) while this reader is reading: what it read may be older than the write.
        #expect(cache.value("a") { cache.invalidate(); return 1 } == 1)
        #expect(cache.value("a") { 2 } == 2)
        #expect(cache.value("a") { 3 } == 2)
    }

    @Test func absenceIsNotCached() {
        let cache = ReadCache<String, Int>(limit: 10)
        #expect(cache.value("a") { nil } == nil)
        #expect(cache.value("a") { 5 } == 5)
    }

    @Test func modifyChangesOnlyCachedValues() {
        let cache = ReadCache<String, Int>(limit: 10)
        #expect(cache.modify("a") { $0 += 1 } == nil)
        _ = cache.value("a") { 1 }
        cache.modify("a") { $0 += 1 }
        #expect(cache.value("a") { 100 } == 2)
    }

    @Test func staysWithinItsLimit() {
        let cache = ReadCache<Int, Int>(limit: 3)
        for key in 0..<5 { _ = cache.value(key) { key } }
        var reads = 0
        for key in 0..<5 { _ = cache.value(key) { reads += 1; return key } }
        #expect(reads >= 2)
    }
}
