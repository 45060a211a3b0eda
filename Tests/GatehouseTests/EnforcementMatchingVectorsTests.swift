import Foundation
import Gatehouse
import GatehouseReceipts
import JSON
import Testing
import TestSupport

/// The matching vectors (Tests/Fixtures/enforcement/matching.json, written by hand), which the Python and Node
/// libraries' tests read too: for each call, the route that judges it, the mode it is judged under and, for a path
/// refused as two parsers could read it differently, the reason; and the one table of refusal problems.
@Suite("Enforcement matching vectors")
struct EnforcementMatchingVectorsTests {
    static func document() throws -> JSON {
        let path = repositoryRoot + "/Tests/Fixtures/enforcement/matching.json"
        return try JSONParser.parse(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
    }

    static func settings(_ mode: JSON?, _ routes: JSON?) throws -> EnforcementSettings {
        let routes = try (routes?.array ?? []).map { route in
            EnforcementRoute(name: try #require(route["name"]?.string), match: try RouteMatch(try #require(route["match"]?.string)),
                             mode: route["mode"]?.string.flatMap(EnforcementMode.init(rawValue:)),
                             require: ReceiptPolicy(requiresBound: route["require"]?["bound"] == true,
                                                    requiresVerifiedAttestation: route["require"]?["attestation"] == "verified"),
                             consume: route["consume"] == true)
        }
        return EnforcementSettings(mode: try #require(mode?.string.flatMap(EnforcementMode.init(rawValue:))), routes: routes)
    }

    @Test func everyCallIsJudgedUnderItsRoute() throws {
        let document = try Self.document()
        let cases = try #require(document["cases"]?.array)
        #expect(cases.count >= 70)
        for c in cases {
            let name = c["name"]?.string ?? "?"
            let settings = try Self.settings(c["environmentMode"], c["routes"] ?? document["routes"])
            let method = try #require(c["method"]?.string)
            let expected = try #require(c["expect"])
            let route: String
            let mode: EnforcementMode
            let reason: String?
            do {
                let path = try NormalizedPath(try #require(c["target"]?.string))
                let matched = settings.route(method: method, path: path)
                (route, mode, reason) = (matched?.name ?? EnforcementSettings.unmatched, settings.mode(of: matched), nil)
            } catch let refusal as NormalizedPath.Refusal {
                (route, mode, reason) = (EnforcementSettings.unmatched, settings.strictestMode, refusal.reason)
            }
            #expect(route == expected["route"]?.string, "\(name)")
            #expect(mode.rawValue == expected["mode"]?.string, "\(name)")
            #expect(reason == expected["reason"]?.string, "\(name)")
        }
    }

    @Test func theVectorsNameEveryRefusal() throws {
        let reasons = Set(try #require(Self.document()["cases"]?.array).compactMap { $0["expect"]?["reason"]?.string })
        #expect(reasons == Set(NormalizedPath.Refusal.allCases.map(\.reason)))
    }

    @Test func refusalsAnswerTheOneTable() throws {
        let problems = try #require(Self.document()["problems"]?.members)
        #expect(problems.count == EnforcementRefusal.allCases.count)
        let names: [EnforcementRefusal: String] = [.missing: "missing", .invalid: "invalid", .reused: "reused", .challenge: "challenge",
                                                   .unmet: "unmet", .unavailable: "unavailable", .misconfigured: "misconfigured"]
        let document = try Self.document()
        for refusal in EnforcementRefusal.allCases {
            let name = try #require(names[refusal])
            let problem = try #require(document["problems"]?[name], "\(refusal)")
            #expect(problem["type"]?.string == "/problems/" + refusal.slug)
            #expect(problem["title"]?.string == refusal.title)
            #expect(problem["status"]?.integer == refusal.status)
            #expect(problem["detail"]?.string == refusal.detail)
        }
    }
}
