import JSON

/// The claims of a Gatehouse receipt (docs/device-api.md "Receipts"): who issued it, for which environment and request,
/// when, for which platform, what the backend should do, on which attestation, and the phone key it is bound to.
public struct ReceiptClaims: Sendable, Equatable {
    /// The `iss` of every receipt.
    public static let issuer = "gatehouse"
    /// How long a receipt is valid, in seconds (`exp − iat`).
    public static let lifetime: Int64 = 600

    /// The environment id (`env`, `env_…`).
    public var environment: String
    /// The assessment's request id (`sub`).
    public var subject: String
    /// Issued at, unix seconds (`iat`).
    public var issuedAt: Int64
    /// Expires at, unix seconds (`exp`).
    public var expiresAt: Int64
    /// The platform the request was assessed as (`plat`, `android` or `ios`): the client's claim, judged by attack mode
    /// and the attestation. Nil only in receipts of servers that predate the claim.
    public var platform: String?
    /// What the backend should do (`action`).
    public var action: ReceiptAction
    /// The attestation judged (`att`), nil when the request brought none.
    public var attestation: ReceiptAttestation?
    /// The phone's key the receipt is bound to (`cnf.jwk`, RFC 7800), nil for an unbound receipt.
    public var confirmationKey: PublicJWK?

    /// Claims issued at `issuedAt`, expiring ``lifetime`` seconds later.
    public init(environment: String, subject: String, issuedAt: Int64, platform: String?, action: ReceiptAction,
                attestation: ReceiptAttestation?, confirmationKey: PublicJWK?) {
        self.environment = environment
        self.subject = subject
        self.issuedAt = issuedAt
        self.expiresAt = issuedAt + Self.lifetime
        self.platform = platform
        self.action = action
        self.attestation = attestation
        self.confirmationKey = confirmationKey
    }

    /// Whether the receipt names a phone key, so every call must carry a proof by it.
    public var isBound: Bool { confirmationKey != nil }

    /// The claims as the JWS payload: `iss, env, sub, iat, exp, plat, action, att` and `cnf` when bound.
    public var json: JSON {
        var members: [JSON.Member] = [
            .init("iss", .string(Self.issuer)), .init("env", .string(environment)), .init("sub", .string(subject)),
            .init("iat", .int(issuedAt)), .init("exp", .int(expiresAt)),
        ]
        if let platform { members.append(.init("plat", .string(platform))) }
        members += [
            .init("action", .string(action.rawValue)),
            .init("att", attestation.map { att in
                var members: [JSON.Member] = [.init("provider", .string(att.provider)), .init("status", .string(att.status))]
                if let risk = att.risk { members.append(.init("risk", .int(Int64(risk)))) }
                return .object(members)
            } ?? .null),
        ]
        if let key = confirmationKey {
            members.append(.init("cnf", ["jwk": PublicJWK(publicKey: key.publicKey).json]))
        }
        return .object(members)
    }

    /// Reads a payload strictly: `iss` must be gatehouse; `env`, `sub` strings; `iat`, `exp` whole numbers with
    /// `0 < exp − iat ≤ lifetime`; `plat`, when present, a short string; `action` allow or challenge; `att` null or `{provider, status}`; `cnf`, when present,
    /// `{"jwk": P-256 public JWK}`.
    ///
    /// - Throws: ``ReceiptError`` (`.token`) naming the claim that is wrong.
    public init(payload bytes: [UInt8]) throws(ReceiptError) {
        let object = try StrictObject(bytes: bytes, kind: .token, what: "the receipt's claims")
        let what = "the receipt's claims"
        guard object["iss"]?.string == Self.issuer else { throw ReceiptError(.token, "the receipt's iss is not \(Self.issuer)") }
        environment = try object.string("env", kind: .token, what: what)
        subject = try object.string("sub", kind: .token, what: what)
        issuedAt = try object.integer("iat", kind: .token, what: what)
        expiresAt = try object.integer("exp", kind: .token, what: what)
        guard expiresAt > issuedAt, expiresAt - issuedAt <= Self.lifetime else {
            throw ReceiptError(.token, "the receipt's exp must follow iat by at most \(Self.lifetime) seconds")
        }
        platform = object["plat"] == nil ? nil : try object.string("plat", kind: .token, what: what, maxLength: 16)
        guard let action = object["action"]?.string.flatMap(ReceiptAction.init(rawValue:)) else {
            throw ReceiptError(.token, "the receipt's action must be allow or challenge")
        }
        self.action = action
        switch object["att"] {
        case nil, .null?:
            attestation = nil
        case let value?:
            let att = try StrictObject(value, kind: .token, what: "the receipt's att")
            let risk = att["risk"] == nil ? nil : try att.integer("risk", kind: .token, what: "the receipt's att")
            guard risk.map({ (0...1_000_000_000).contains($0) }) ?? true else { throw ReceiptError(.token, "the receipt's att.risk is out of range") }
            attestation = ReceiptAttestation(provider: try att.string("provider", kind: .token, what: "the receipt's att", maxLength: 64),
                                             status: try att.string("status", kind: .token, what: "the receipt's att", maxLength: 64),
                                             risk: risk.map(Int.init))
        }
        if let cnf = object["cnf"] {
            let confirmation = try StrictObject(cnf, kind: .token, what: "the receipt's cnf")
            guard let jwk = confirmation["jwk"] else { throw ReceiptError(.token, "the receipt's cnf needs jwk") }
            do {
                confirmationKey = try PublicJWK(json: jwk)
            } catch {
                throw ReceiptError(.token, "the receipt's cnf.jwk: \(error.message)")
            }
        } else {
            confirmationKey = nil
        }
    }
}
