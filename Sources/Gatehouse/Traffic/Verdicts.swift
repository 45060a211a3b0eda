import Storage

/// Verdict traffic: ingest (raw rows for the retention window plus hourly rollups, in one transaction, once per
/// idempotency key), the week's checklist and chart (read from rollups only), and retention.
public struct Verdicts: Sendable {
    let store: Store
    /// Raw verdicts are kept this long, then deleted by `prune`.
    public static let rawRetention: Int64 = 8 * 86_400
    /// Rollups are kept this long.
    public static let rollupRetention: Int64 = 90 * 86_400
    /// Observed fields rolled up per setup reason, for the checklist's evidence.
    static let rolledUpFields = ["packageName", "certificateDigest", "appId", "attestationEnvironment", "appRecognitionVerdict", "appLicensingVerdict",
                                 "bootKey"]
    /// What verdicts of genuine objects show whatever their status, rolled up on their status row. App Attest: the
    /// launch (app id, validation category, bundle version) and the receipt's validity (the checklist's
    /// `appAttest.validationCategory` and `appAttest.receipts`, the Traffic tab's launches). Play Integrity: version
    /// codes, SDK levels, testing responses and the device labels, new and legacy (the Traffic tab, the checklist). Key
    /// Attestation: the key's security level, the boot state and key, the patch level (the Traffic tab).
    static let statusRolledUpFields = [AppAttestObservation.launchField, "receipt", "receiptReasons",
                                       "versionCode", "sdkVersion", "testingResponse", "deviceLabels",
                                       "securityLevel", "verifiedBootState", "bootKey", "osPatchLevel"]
    /// Which step of a key's life a verdict judged, rolled up on the status rows of every status, forged too (the
    /// server sets it, never the phone): `registration` for a key registered, absent for a use of it. The checklist's
    /// `keyAttestation.softwareKeys` counts registrations by it.
    public static let stageField = "stage"
    public static let registrationStage = "registration"
    /// The providers whose verdicts roll those fields up.
    static let statusRolledUpProviders: Set<String> = [Provider.appAttest, Provider.playIntegrity, Provider.keyAttestation]

    init(_: Wiring, store: Store) {
        self.store = store
    }

    /// Stores a validated batch for an environment. With an idempotency key already seen for this environment, stores
    /// nothing and returns the count accepted the first time.
    public func ingest(_ verdicts: [TrafficVerdict], environmentID: String, idempotencyKey: String? = nil) throws -> Int {
        let now = store.clock()
        // Everything that needs no database is done before taking the writer: the rows' values and the rollup sums.
        // The writer then only runs multi-row inserts, so concurrent batches queue for as short a time as possible.
        let environment = SQLValue.text(environmentID)
        var rows: [SQLValue] = []
        rows.reserveCapacity(verdicts.count * 7)
        var counts: [RollupKey: Int] = [:]
        var observed: [ObservedKey: Int] = [:]
        // Raw rows go in hour by hour (then in batch order), so that each hour's entries in the environment and hour
        // index are appended together rather than alternating between that index's pages.
        let hours = verdicts.map { $0.at - (($0.at % 3600) + 3600) % 3600 }
        let order = verdicts.indices.sorted { (hours[$0], $0) < (hours[$1], $1) }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(512)
        // Most verdicts of a batch report the same few things: each distinct set is written once.
        var observedTexts: [[String: String]: String] = [:]
        for i in order {
            let v = verdicts[i], hour = hours[i]
            rows.append(environment)
            rows.append(.integer(v.at))
            rows.append(.text(v.platform))
            rows.append(.text(v.provider))
            rows.append(.text(v.status))
            rows.append(.text(Self.reasonsText(v.reasons, buffer: &buffer)))
            rows.append(.text(observedTexts[v.observed] ?? {
                let text = Self.observedText(v.observed, buffer: &buffer)
                observedTexts[v.observed] = text
                return text
            }()))
            let statusKey = RollupKey(hour: hour, provider: v.provider, status: v.status, reason: "")
            counts[statusKey, default: 0] += 1
            if v.status != "forged" && Self.statusRolledUpProviders.contains(v.provider) {
                for field in Self.statusRolledUpFields {
                    if let value = v.observed[field] { observed[ObservedKey(rollup: statusKey, field: field, value: value), default: 0] += 1 }
                }
            }
            if v.observed[Self.stageField] == Self.registrationStage {
                observed[ObservedKey(rollup: statusKey, field: Self.stageField, value: Self.registrationStage), default: 0] += 1
            }
            for reason in v.reasons {
                let key = RollupKey(hour: hour, provider: v.provider, status: v.status, reason: reason)
                counts[key, default: 0] += 1
                // What devices reported is evidence for setup items only; device reasons (a farm's random values)
                // would only grow the table the checklist reads.
                guard SetupReason(reason: reason, provider: v.provider) != nil else { continue }
                for field in Self.rolledUpFields {
                    if let value = v.observed[field] { observed[ObservedKey(rollup: key, field: field, value: value), default: 0] += 1 }
                }
                if v.observed["appRecognitionVerdict"] == "PLAY_RECOGNIZED", let digest = v.observed["certificateDigest"] {
                    observed[ObservedKey(rollup: key, field: ObservedValue.recognizedCertificateDigest, value: digest), default: 0] += 1
                }
            }
        }
        // Upserts go hour by hour, each near the one before in the primary key (the hour follows the environment).
        let rollupRows = counts.sorted { $0.key.hour < $1.key.hour }.flatMap { key, n in
            [environment, .integer(key.hour), .text(key.provider), .text(key.status), .text(key.reason), .integer(Int64(n))] as [SQLValue]
        }
        let observedRows = observed.sorted { $0.key.rollup.hour < $1.key.rollup.hour }.flatMap { key, n in
            [environment, .integer(key.rollup.hour), .text(key.rollup.provider), .text(key.rollup.status), .text(key.rollup.reason),
             .text(key.field), .text(key.value), .integer(Int64(n))] as [SQLValue]
        }
        return try store.write { db in
            if let idempotencyKey {
                if let accepted = try VerdictsTable.acceptedBatch(db, environmentID: environmentID, idempotencyKey: idempotencyKey) { return accepted }
                try VerdictsTable.recordBatch(db, environmentID: environmentID, idempotencyKey: idempotencyKey, accepted: verdicts.count, now: now)
            }
            try VerdictsTable.insert(db, rows: rows)
            try VerdictsTable.addRollups(db, rows: rollupRows)
            try VerdictsTable.addObservedRollups(db, rows: observedRows)
            return verdicts.count
        }
    }

    /// The week's rollups of an environment, summed per (provider, status, reason) with their observed values:
    /// what the checklist reads. The cost depends on the number of distinct reasons, not of verdicts.
    ///
    /// The week is the hour of `now` and the 167 whole hours before it. The summed rows are stamped with the start of
    /// the first of those hours, which stays inside the checklist's window (`now - 7 days ..< now`) for every `now`
    /// in the same hour — so the sums can be cached for that hour.
    public func weekRollups(environmentID: String, now: Int64) throws -> [VerdictRollup] {
        let from = (now - ((now % 3600) + 3600) % 3600) + 3600 - ChecklistThresholds().windowSeconds
        return try store.read { db in
            var observed: [String: [ObservedValue]] = [:]
            try VerdictsTable.observedSums(db, environmentID: environmentID, from: from, to: now) { provider, status, reason, field, value, n in
                observed["\(provider)|\(status)|\(reason)", default: []].append(ObservedValue(field: field, value: value, count: n))
            }
            var rollups: [VerdictRollup] = []
            try VerdictsTable.sums(db, environmentID: environmentID, from: from, to: now) { provider, status, reason, n in
                rollups.append(VerdictRollup(hour: from, provider: provider, status: status, reason: reason.isEmpty ? nil : reason,
                                             count: n, observed: observed["\(provider)|\(status)|\(reason)"] ?? []))
            }
            return rollups
        }
    }

    /// Verdict counts per day (UTC) over the last 7 days, oldest first, by status (for the traffic chart) and by
    /// provider (`debug` apart from the two platforms' providers).
    public func dailyCounts(environmentID: String, now: Int64) throws -> [(day: Int64, counts: [String: Int], providers: [String: Int])] {
        let today = now - ((now % 86_400) + 86_400) % 86_400
        let from = today - 6 * 86_400
        var statuses: [Int64: [String: Int]] = [:], providers: [Int64: [String: Int]] = [:]
        try store.read { db in
            try VerdictsTable.dailyCounts(db, environmentID: environmentID, from: from) { day, provider, status, n in
                statuses[day, default: [:]][status, default: 0] += n
                providers[day, default: [:]][provider, default: 0] += n
            }
        }
        return (0..<7).map { i in
            let day = from + Int64(i) * 86_400
            return (day, statuses[day] ?? [:], providers[day] ?? [:])
        }
    }

    /// Deletes raw verdicts past their retention, rollups past theirs, and idempotency keys older than a day.
    @discardableResult
    public func prune() throws -> Int {
        let now = store.clock()
        return try store.write { db in
            // Every verdict belongs to an existing environment (deleting one cascades): each one's old hours are a
            // range of the environment and hour index.
            var deleted = 0
            for environmentID in try EnvironmentsTable.ids(db) {
                deleted += try VerdictsTable.deleteRaw(db, environmentID: environmentID, before: now - Self.rawRetention)
            }
            try VerdictsTable.deleteRollups(db, before: now - Self.rollupRetention)
            try VerdictsTable.deleteBatches(db, before: now - 86_400)
            return deleted
        }
    }

    struct RollupKey: Hashable {
        var hour: Int64
        var provider: String
        var status: String
        var reason: String
    }

    struct ObservedKey: Hashable {
        var rollup: RollupKey
        var field: String
        var value: String
    }
}
