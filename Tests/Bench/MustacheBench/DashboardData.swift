import Mustache

/// The data of the dashboard page: 100 environments, each with 2–3 Android apps (each with its signing digest) and 1–2 Apple ids.
enum DashboardData {
    static func make(environments count: Int = 100) -> MustacheValue {
        var environments: [MustacheValue] = []
        for index in 0..<count {
            var android: [MustacheValue] = []
            for app in 0..<(2 + index % 2) {
                android.append([
                    "package": .string("com.example.tenant\(index).app\(app)"),
                    "digests": [.string(digest(index * 7 + app))],
                ])
            }
            var apple: [MustacheValue] = []
            for app in 0..<(1 + index % 2) {
                apple.append(["teamId": "A1B2C3D4E5", "bundleId": .string("com.example.tenant\(index).ios\(app)")])
            }
            environments.append([
                "name": .string("Tenant \(index) <\(index % 3 == 0 ? "prod" : "test")> & \"co\""),
                "slug": .string("tenant-\(index)"),
                "production": .bool(index % 3 == 0),
                "android": .array(android),
                "apple": .array(apple),
                "verdicts": ["passed": .int(9000 + index), "total": .int(10000 + index * 3)],
                "updated": "2025-11-30T03:02:00Z",
            ])
        }
        return [
            "version": "0.1.0",
            "csrf": "d9f8c7b6a5e4d3c2b1a09f8e7d6c5b4a",
            "user": ["name": "Ada O'Brien", "admin": true],
            "nav": [
                ["href": "/", "label": "Overview"],
                ["href": "/environments", "label": "Environments", "current": true],
                ["href": "/keys", "label": "API keys"],
                ["href": "/audit", "label": "Audit log"],
            ],
            "flash": [["kind": "success", "message": "Environment \"tenant-7\" saved."]],
            "environments": .array(environments),
        ]
    }

    /// A fake hex SHA-256 digest.
    private static func digest(_ seed: Int) -> String {
        var state = UInt64(truncatingIfNeeded: seed) &* 0x9E37_79B9_7F4A_7C15 | 1
        var hex = ""
        for _ in 0..<4 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            let chunk = String(state, radix: 16)
            hex += String(repeating: "0", count: 16 - chunk.count) + chunk
        }
        return hex
    }
}
