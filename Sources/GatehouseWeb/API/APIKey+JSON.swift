import Gatehouse
import JSON

extension APIKey {
    /// The wire form; a secret key's value never appears here (see `IssuedKey.json`).
    func json(now: Int64) -> JSON {
        var members: [JSON.Member] = [
            .init("id", .string(id)),
            .init("type", .string(type.rawValue)),
            .init("name", .string(name)),
        ]
        if let publicValue { members.append(.init("value", .string(publicValue))) }
        members += [
            .init("hint", .string(hint)),
            .init("state", .string(state(at: now))),
            .init("createdAt", .string(Timestamp.format(createdAt))),
            .init("expiresAt", expiresAt.map { .string(Timestamp.format($0)) } ?? .null),
            .init("revokedAt", revokedAt.map { .string(Timestamp.format($0)) } ?? .null),
        ]
        return .object(members)
    }
}

extension IssuedKey {
    /// The wire form of a key just created: a secret key's plaintext under `secret`, this once.
    func json(now: Int64) -> JSON {
        guard case .object(var members) = key.json(now: now) else { return key.json(now: now) }
        if let secret { members.insert(.init("secret", .string(secret)), at: 3) }
        return .object(members)
    }
}
