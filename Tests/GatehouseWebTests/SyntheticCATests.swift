import Testing

extension Trait where Self == ConditionTrait {
    /// For suites that serve devices (``DeviceServer``), whose App Attest roots are the synthetic CA made once with
    /// openssl: when that fails they are skipped, saying so, and `SyntheticCATests` fails once with openssl's words
    /// (instead of every device test failing with the same error).
    static var needsSyntheticCA: Self {
        .enabled(if: (try? DeviceServer.authority.get()) != nil,
                 "the synthetic App Attest CA (made with openssl) could not be made: SyntheticCATests says why")
    }
}

/// The one test that fails when the synthetic App Attest CA cannot be made.
@Suite("The synthetic App Attest CA") struct SyntheticCATests {
    @Test func isMadeWithOpenSSL() throws {
        _ = try DeviceServer.authority.get()
    }
}
