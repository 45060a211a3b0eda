import Gatehouse
import JSON

extension EnforcementWeek {
    /// `GET …/enforcement`'s body: `{"days", "routes": [{"name", "mode", "outcomes": {"edge", "backend"},
    /// "wouldRefuse": {"count", "share"}}]}`, every outcome present.
    var json: JSON {
        .object([
            .init("days", .int(Int64(days))),
            .init("from", .string(Timestamp.format(from))),
            .init("to", .string(Timestamp.format(to))),
            .init("routes", .array(routes.map { route in
                .object([
                    .init("name", .string(route.name)),
                    .init("mode", route.mode.map { .string($0.rawValue) } ?? .null),
                    .init("outcomes", .object([.init("edge", Self.json(route.edge)), .init("backend", Self.json(route.backend))])),
                    .init("wouldRefuse", .object([
                        .init("count", .int(Int64(route.all.wouldRefuse))),
                        .init("share", .number((route.wouldRefuseShare * 10_000).rounded() / 10_000)),
                    ])),
                ])
            })),
        ])
    }

    static func json(_ counts: OutcomeCounts) -> JSON {
        .object(EnforcementOutcome.allCases.map { .init($0.rawValue, .int(Int64(counts[$0]))) })
    }
}
