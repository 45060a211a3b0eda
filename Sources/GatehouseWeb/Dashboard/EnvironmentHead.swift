import Gatehouse
import Mustache

/// What every page of one environment shows above its tab: the header and the tab bar.
enum EnvironmentHead {
    /// The header and tab bar values, with `tab` marked active.
    static func values(_ environment: Environment, tab: String) -> [String: MustacheValue] {
        [
            "environment": [
                "id": .string(environment.id),
                "name": .string(environment.name),
                "kind": .string(environment.kind.rawValue),
                "production": .bool(environment.kind == .production),
                "attackMode": .bool(environment.attackMode),
            ],
            "tab_" + tab: true,
        ]
    }
}
