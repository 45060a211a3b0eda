import Crypto
import Foundation
import Gatehouse
import GatehouseReceipts
import HTTP
import HTTPServer
import JSON

/// The receipt endpoints of docs/device-api.md "Receipts": `GET /api/v4/receipts/keys` (the JWKS, cacheable) and
/// `POST /api/v4/receipts/verify` (an app backend's check of a receipt and its proof, with the environment's secret
/// key). The check is `GatehouseReceipts.ReceiptVerifier`, the same code a backend embeds, then the spent state that
/// only the server holds (`ReceiptChecker`: `"consume": true` spends a receipt once).
struct ReceiptsAPI: Sendable {
    let receiptKeys: ReceiptKeys
    let keys: APIKeys
    let checker: ReceiptChecker

    /// Largest verify body read (as the device endpoints).
    static let maxBodyBytes = 65_536
    /// How long clients may keep the JWKS (`Cache-Control: max-age`), in seconds.
    static let keysMaxAge = 300
    /// Longest `method` accepted.
    static let maxMethodLength = 32
    /// Longest `pathAndQuery` accepted.
    static let maxPathLength = 8192

    /// Adds the routes through `add` (the application's metered registration).
    func register(_ add: (String, String, @escaping Router.Handler) -> Void) {
        add("GET", "/api/v4/receipts/keys", keys)
        add("POST", "/api/v4/receipts/verify", verify)
    }

    /// The JWKS with `Cache-Control: public, max-age=300` and a strong `ETag`; `If-None-Match` → 304.
    func keys(_ request: Request) throws -> Response {
        ConditionalGet.response(to: request, body: try receiptKeys.published().serialized(), contentType: "application/jwk-set+json",
                                cacheControl: "public, max-age=\(Self.keysMaxAge)")
    }

    /// Checks `{"token", "method", "pathAndQuery", "proof", "require", "consume"}` for the environment of the presented
    /// secret key.
    func verify(_ request: Request) throws -> Response {
        guard let presented = request.bearerCredentials else {
            throw DomainError.unauthenticated("send one of the environment's secret keys as Authorization: Bearer sk_…")
        }
        let key = try keys.authenticateSecret(presented)
        guard request.body.count <= Self.maxBodyBytes else {
            throw Problem(status: 413, slug: "body-too-large", title: "Body too large", detail: "The body is over \(Self.maxBodyBytes) bytes.")
        }
        let body = try JSONBody.read(request)
        let input = try Self.input(body)
        let result = try checker.check(input.token, method: input.method, pathAndQuery: input.pathAndQuery, proof: input.proof,
                                       policy: input.policy, environmentID: key.environmentID, consume: input.consume)
        return JSONBody.response(result.json, headers: ["Cache-Control": "no-store"])
    }

    /// The fields of a verify body (``input(_:)``).
    struct Input {
        var token: String
        var method: String
        var pathAndQuery: String
        var proof: String?
        var policy: ReceiptPolicy
        /// Whether to spend the receipt when it is valid (`"consume": true`).
        var consume: Bool
    }

    /// The fields of a verify body, each checked; every wrong one named by pointer in one 400.
    static func input(_ body: JSON) throws -> Input {
        guard case .object = body else {
            throw Problem.badRequest([FieldError("", "must be a JSON object {token, method, pathAndQuery, proof}")])
        }
        var errors: [FieldError] = []
        let token = body["token"]?.string
        if token == nil { errors.append(FieldError("/token", "must be the receipt (sessionToken) as a string")) }
        let method = body["method"]?.string
        if method.map(isMethod) != true {
            errors.append(FieldError("/method", "must be the call's HTTP method, e.g. GET (1 to \(maxMethodLength) token characters)"))
        }
        let path = body["pathAndQuery"]?.string
        if path.map(isPathAndQuery) != true {
            errors.append(FieldError("/pathAndQuery", "must be the call's path and query as sent, starting with / (at most \(maxPathLength) bytes)"))
        }
        var proof: String?
        switch body["proof"] {
        case nil, .null?: proof = nil
        case .string(let text)?: proof = text
        default: errors.append(FieldError("/proof", "must be the proof header t=<unix ms>,s=<signature> as a string, or null"))
        }
        let policy = Self.policy(body["require"], errors: &errors)
        var consume = false
        switch body["consume"] {
        case nil, .null?: consume = false
        case .bool(let value)?: consume = value
        default: errors.append(FieldError("/consume", "must be true (spend the receipt: valid once, for an operation that must happen once) or false"))
        }
        guard errors.isEmpty, let token, let method, let path else { throw Problem.badRequest(errors) }
        return Input(token: token, method: method, pathAndQuery: path, proof: proof, policy: policy, consume: consume)
    }

    /// The backend's policy, `"require"` (``ReceiptPolicyFields``); its faults go to `errors`.
    static func policy(_ value: JSON?, errors: inout [FieldError]) -> ReceiptPolicy {
        var fields = FieldErrors()
        let policy = ReceiptPolicyFields.parse(value, at: "/require", errors: &fields)
        errors += fields.errors
        return policy
    }

    /// A method as RFC 9110 §5.6.2 `token` characters.
    static func isMethod(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= maxMethodLength && text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
            default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }
    }

    /// A request target in origin form: starts with `/`, visible ASCII only.
    static func isPathAndQuery(_ text: String) -> Bool {
        text.utf8.first == UInt8(ascii: "/") && text.utf8.count <= maxPathLength && text.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }
}
