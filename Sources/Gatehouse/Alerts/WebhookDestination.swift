import HTTPClient

/// Where a webhook URL leads, and whether this server may go there (docs/device-api.md "Endpoints", `url`): `https`
/// only (`http` to loopback with `--webhook-allow-http`), no credentials in the URL, and no address inside a network
/// (private, loopback, link-local, unique-local) unless `--webhook-allow-private`, checked on what the host resolves to
/// now: at creation and again before every delivery, whose connection goes to the address checked.
struct WebhookDestination: Sendable {
    let scheme: String
    let host: String
    let port: Int
    /// The URL as people are shown it: scheme, host, port and the path's first segment, the rest `…` (a Slack or
    /// Mattermost URL's path is its credential).
    let shown: String

    /// What a server allows, and how it resolves names (the system's resolver; tests give their own).
    struct Rules: Sendable {
        var allowHTTP: Bool
        var allowPrivate: Bool
        var resolve: @Sendable (String) throws -> [OutboundAddress]
    }

    /// Why a URL or its address is refused, said to the person who gave it.
    struct Refusal: Error, Sendable, CustomStringConvertible {
        let description: String
    }

    /// Reads `url`: `http(s)://host[:port][/path][?query]`.
    /// - Throws: ``Refusal`` naming what is wrong.
    init(_ url: String, rules: Rules) throws(Refusal) {
        guard url.utf8.count <= 2_048 else { throw Refusal(description: "must be at most 2048 bytes") }
        guard !url.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else { throw Refusal(description: "must not hold spaces or control characters") }
        let lowered = url.lowercased()
        if lowered.hasPrefix("https://") {
            scheme = "https"
        } else if lowered.hasPrefix("http://") {
            guard rules.allowHTTP else { throw Refusal(description: "must be an https:// URL") }
            scheme = "http"
        } else {
            throw Refusal(description: "must be an https:// URL")
        }
        let rest = url.dropFirst(scheme.count + 3)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !url.contains("#") else { throw Refusal(description: "must not have a fragment (#…)") }
        guard !authority.contains("@") else { throw Refusal(description: "must not hold a user name or password: the receiver checks the signature instead") }
        var hostPart = Substring(authority), portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw Refusal(description: "has an unclosed [ in its host") }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw Refusal(description: "has text after its [address]") }
                portText = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            hostPart = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        }
        guard !hostPart.isEmpty, hostPart.utf8.count <= 253 else { throw Refusal(description: "must name a host") }
        host = hostPart.lowercased()
        if let portText {
            guard let number = Int(portText), (1...65_535).contains(number) else { throw Refusal(description: "has a port that is not 1 to 65535") }
            port = number
        } else {
            port = scheme == "https" ? 443 : 80
        }
        let path = rest.dropFirst(authority.count)
        let segment = path.dropFirst().prefix { $0 != "/" && $0 != "?" }
        let hidden = path.count > segment.count + 1
        shown = "\(scheme)://\(authority.lowercased())" + (segment.isEmpty ? (path.isEmpty ? "" : "/…") : "/\(segment)" + (hidden ? "/…" : ""))
    }

    /// The address a delivery connects to: what the host resolves to now, every address checked.
    /// - Throws: ``Refusal`` when the host does not resolve, or resolves to an address inside a network (any of them:
    ///   a name with one internal address among public ones is refused) without `allowPrivate`, or `http` reaches
    ///   something other than loopback.
    func address(rules: Rules) throws(Refusal) -> OutboundAddress {
        let addresses: [OutboundAddress]
        do {
            addresses = try rules.resolve(host)
        } catch {
            throw Refusal(description: "\(host) does not resolve")
        }
        guard let first = addresses.first else { throw Refusal(description: "\(host) does not resolve") }
        if !rules.allowPrivate, let inside = addresses.first(where: \.isInternal) {
            throw Refusal(description: "\(host) resolves to \(inside), an address inside a network (private, loopback, link-local or unique-local); "
                + "the server allows those only with --webhook-allow-private")
        }
        if scheme == "http", let outside = addresses.first(where: { !$0.isLoopback }) {
            throw Refusal(description: "http:// is allowed only to loopback, and \(host) resolves to \(outside): use https://")
        }
        return first
    }
}
