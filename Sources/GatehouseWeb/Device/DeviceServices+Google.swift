import Gatehouse

extension DeviceServices {
    /// The one decoder through Google, for `--play-integrity-endpoint` and `--outbound-ca-file`.
    /// - Throws: `ConfigurationError` when the endpoint is not https or the CA file cannot be read.
    static func googleDecoder(_ configuration: Configuration, clock: Clock) throws -> GoogleDecoder {
        do {
            return try GoogleDecoder(configuration: GoogleDecoderConfiguration(endpoint: configuration.playIntegrityEndpoint,
                                                                              caFile: configuration.outboundCAFile,
                                                                              tokenEndpoints: configuration.tokenEndpoints),
                                     clock: clock)
        } catch {
            throw ConfigurationError("--play-integrity-endpoint / --outbound-ca-file: \(error)")
        }
    }
}
