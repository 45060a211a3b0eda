/// Which audit entries change what decides an environment's verdicts (its registration and its keys), for the
/// traffic chart's marks.
extension AuditEntry {
    /// An update of the environment or a change of one of its keys.
    public var isConfigurationChange: Bool {
        action == "environment.update" || action.hasPrefix("key.")
    }

    /// The fields an `environment.update` changed, in the order recorded.
    public var changedFields: [String] {
        changes.array?.compactMap { $0["field"]?.string } ?? []
    }
}

extension AuditLog {
    /// The environment's configuration changes since `from` (unix seconds), oldest first, among its latest `limit`
    /// entries.
    public func configurationChanges(environmentID: String, since from: Int64, limit: Int = 200) throws -> [AuditEntry] {
        try list(environmentID: environmentID, limit: limit).entries.reversed().filter { $0.at >= from && $0.isConfigurationChange }
    }
}
