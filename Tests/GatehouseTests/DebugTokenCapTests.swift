import DomainTesting
import Foundation
@testable import Gatehouse
import Testing
import TestThreads

/// The cap of 20 active debug tokens per environment holds when creations race through two servers of one database
/// (READ COMMITTED counts the tokens before any of the racing ones is written).
@Suite("Debug tokens: the cap under concurrency")
struct DebugTokenCapTests {
    @Test(arguments: DomainEngine.allCases)
    func parallelCreationsThroughTwoServersStopAtTwenty(_ engine: DomainEngine) throws {
        let (first, second) = try AdminRaceTests.twoServers(engine)
        let (environment, _) = try first.environment()
        let services = [first.domain.debugTokens, second.debugTokens]
        let created = concurrently(30) { i in
            (try? services[i % 2].create(environmentID: environment.id, name: "CI \(i)", expiresAt: nil, actor: .system)) != nil
        }
        #expect(created.filter { $0 }.count == DebugTokens.maxActive, "\(created.filter { $0 }.count) tokens were created")
        #expect(try services[0].list(environmentID: environment.id).count == DebugTokens.maxActive)
    }
}
