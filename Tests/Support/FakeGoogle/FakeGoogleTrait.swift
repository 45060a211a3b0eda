import Testing

extension Trait where Self == ConditionTrait {
    /// For suites that talk to the fake Google over TLS: its CA and certificate are made once with openssl, and when
    /// that fails the suites are skipped, saying so, while `FakeGoogleMaterialTests` fails once with openssl's words
    /// (instead of every test failing with the same error).
    public static var needsFakeGoogleTLS: Self {
        .enabled(if: TLSMaterial.isMade, "the fake Google's TLS material (made with openssl) could not be made: FakeGoogleMaterialTests says why")
    }
}
