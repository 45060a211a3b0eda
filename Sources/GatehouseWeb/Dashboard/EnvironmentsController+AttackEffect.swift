import Gatehouse
import Mustache

extension EnvironmentsController {
    /// Attack mode's effect over the last hour, per platform that could prove itself: "in the last hour 3 % of iOS
    /// requests came without proof and would be challenged" (were, while the switch is on). Platforms left alone say
    /// so in the coverage list and are not repeated here.
    func attackEffect(_ environment: Environment, now: Int64) -> [MustacheValue] {
        AssessRequest.Platform.allCases.compactMap { platform -> MustacheValue? in
            guard AssessService.couldProve(platform, environment) else { return nil }
            let name = platform == .ios ? "iOS" : "Android"
            let counts = assessTally.lastHour(environmentID: environment.id, platform: platform, now: now)
            guard counts.requests > 0 else {
                return ["none": .string("No \(name) requests were assessed in the last hour.")]
            }
            return [
                "share": .string(Self.percent(counts.unprovenPercent)),
                "rest": .string("of \(name) requests (\(counts.unproven) of \(counts.requests)) came without proof and \(environment.attackMode ? "were" : "would be") challenged."),
            ]
        }
    }

    /// "3 %", "0.4 %", "0 %".
    static func percent(_ value: Double) -> String {
        if value == 0 || value >= 10 || value.rounded() == value { return "\(Int(value.rounded())) %" }
        return "\((value * 10).rounded() / 10) %"
    }
}
