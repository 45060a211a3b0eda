import Gatehouse
import JSON

extension ChecklistReport {
    /// `{"window": {"from", "to"}, "items": [...]}`.
    var json: JSON {
        [
            "window": ["from": .string(Timestamp.format(windowFrom)), "to": .string(Timestamp.format(windowTo))],
            "items": .array(items.map(\.json)),
        ]
    }
}

extension ChecklistItem {
    var json: JSON {
        [
            "id": .string(id),
            "status": .string(status.rawValue),
            "title": .string(title),
            "detail": .string(detail),
            "fix": .string(fix),
            "evidence": [
                "provider": .optional(evidence.provider),
                "verdicts": .int(evidence.verdicts),
                "failing": .int(evidence.failing),
                "share": .number(evidence.share),
                "reasons": .array(evidence.reasons.map { .string($0) }),
                "observed": .array(evidence.observed.map { ["field": .string($0.field), "value": .string($0.value), "count": .int($0.count)] }),
                "registered": .array(evidence.registered.map { .string($0) }),
            ],
        ]
    }
}
