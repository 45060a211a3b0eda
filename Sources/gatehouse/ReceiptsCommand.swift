import Gatehouse

/// `gatehouse receipts rotate-key`: retires the current receipt signing key (still published for an hour, so
/// receipts it signed keep verifying) and makes a new one that signs from now on.
enum ReceiptsCommand {
    static let usage = "usage: gatehouse receipts rotate-key [--revoke-now] [options]"

    static func run(_ arguments: [String], environment: [String: String]) throws -> Int32 {
        guard arguments.first == "rotate-key" else { throw ConfigurationError(usage) }
        if arguments.contains("--help") {
            return Command.help("gatehouse receipts rotate-key [--revoke-now] [options]", """
                Retires the current receipt signing key and makes a new one. The retired key stays in the JWKS \
                (GET /api/v4/receipts/keys) for an hour, so receipts it signed keep verifying; a running server \
                signs with the new key within \(ReceiptKeys.refreshSeconds) seconds. With --revoke-now (a key that \
                leaked), the retired key and every earlier one leave the JWKS at once (a running server within \
                \(ReceiptKeys.refreshSeconds) seconds), so receipts they signed stop verifying.
                """)
        }
        let (configuration, own, _) = try DomainConfiguration.parse(Array(arguments.dropFirst()), environment: environment,
                                                                    extra: ConfigurationOption.command(values: [], switches: ["--revoke-now"]))
        let revokeNow = own["--revoke-now"] != nil
        let domain = try Command.openDomain(configuration)
        // On a database no server has served yet there is no key to retire: make the first, then rotate it.
        try domain.receiptKeys.prepare()
        let rotated = try domain.receiptKeys.rotate(revokeNow: revokeNow)
        print("receipt signing key \(rotated.current) is current")
        if let retired = rotated.retired {
            print(revokeNow ? "receipt signing key \(retired) revoked: no longer published, its receipts no longer verify"
                            : "receipt signing key \(retired) retired; published for another \(ReceiptKeys.retiredKeyLifetime / 60) minutes")
        }
        return 0
    }
}
