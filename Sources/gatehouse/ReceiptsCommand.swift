import Gatehouse
import GatehouseWeb

/// `gatehouse receipts rotate-key`: retires the current receipt signing key (still published for an hour, so
/// receipts it signed keep verifying) and makes a new one that signs from now on.
enum ReceiptsCommand {
    static let usage = "usage: gatehouse receipts rotate-key [options]"

    static func run(_ arguments: [String], environment: [String: String]) throws -> Int32 {
        guard arguments.first == "rotate-key" else { throw ConfigurationError(usage) }
        if arguments.contains("--help") {
            return Command.help("gatehouse receipts rotate-key [options]", """
                Retires the current receipt signing key and makes a new one. The retired key stays in the JWKS \
                (GET /api/v4/receipts/keys) for an hour, so receipts it signed keep verifying; a running server \
                signs with the new key within \(ReceiptKeys.refreshSeconds) seconds.
                """)
        }
        let (configuration, _) = try Configuration.parse(Array(arguments.dropFirst()), environment: environment)
        let application = try Application(configuration: configuration, logger: .standardError())
        let rotated = try application.services.receiptKeys.rotate()
        print("receipt signing key \(rotated.current) is current")
        if let retired = rotated.retired { print("receipt signing key \(retired) retired; published for another \(ReceiptKeys.retiredKeyLifetime / 60) minutes") }
        return 0
    }
}
