import JSON

/// Changes to one registered app at a time (the dashboard's forms and the checklist's fix). Each reads the
/// environment inside the write transaction and changes only its app, so changes to different apps made at the same
/// moment all stay: none is lost to another's stale copy of the list.
extension Environments {
    /// Registers an Android app. Throws `ValidationError` at `/packageName` when the package is registered already,
    /// `DomainError.notFound` for an unknown environment.
    public func addAndroidApp(_ app: AndroidApp, to id: String, actor: AuditActor) throws -> Environment {
        try update(id, actor: actor) { _, environment in
            guard !environment.androidApps.contains(where: { $0.packageName == app.packageName }) else { throw Self.duplicatePackage }
            environment.androidApps.append(app)
            return []
        }
    }

    /// Replaces the Android app registered as `packageName` (its package name may change too), in its place.
    /// Throws `DomainError.notFound` when it is not registered, `ValidationError` at `/packageName` when the new
    /// name is another registered app's.
    public func updateAndroidApp(_ packageName: String, to app: AndroidApp, in id: String, actor: AuditActor) throws -> Environment {
        try update(id, actor: actor) { _, environment in
            let index = try Self.androidApp(packageName, in: environment)
            if app.packageName != packageName, environment.androidApps.contains(where: { $0.packageName == app.packageName }) {
                throw Self.duplicatePackage
            }
            environment.androidApps[index] = app
            return []
        }
    }

    /// Removes the Android app registered as `packageName`; throws `DomainError.notFound` when there is none.
    public func removeAndroidApp(_ packageName: String, from id: String, actor: AuditActor) throws -> Environment {
        try update(id, actor: actor) { _, environment in
            environment.androidApps.remove(at: try Self.androidApp(packageName, in: environment))
            return []
        }
    }

    /// Adds a certificate digest (32 bytes) to the Android app registered as `packageName`, unless it is there.
    /// `ifMatch` makes it conditional on the revision the admin saw. Throws `DomainError.notFound` or
    /// `.preconditionFailed`.
    public func addCertificateDigest(_ digest: [UInt8], toAndroidApp packageName: String, in id: String, ifMatch: String? = nil,
                                     actor: AuditActor) throws -> Environment {
        try update(id, ifMatch: ifMatch, actor: actor) { _, environment in
            let index = try Self.androidApp(packageName, in: environment)
            guard !environment.androidApps[index].certificateDigests.contains(digest) else { return [] }
            guard environment.androidApps[index].certificateDigests.count < AndroidAppFields.maxDigests else {
                throw ValidationError("/certificateDigests", "must list at most \(AndroidAppFields.maxDigests) digests")
            }
            environment.androidApps[index].certificateDigests.append(digest)
            return []
        }
    }

    /// Registers an Apple app id (`TEAMID.bundleId`); `ifMatch` makes it conditional on the revision the admin saw.
    /// Throws `ValidationError` at `/appId` when it is malformed or registered already, `DomainError.notFound` for an
    /// unknown environment, `.preconditionFailed` for a stale `ifMatch`.
    public func addAppleAppID(_ appID: String, to id: String, ifMatch: String? = nil, actor: AuditActor) throws -> Environment {
        guard AppleAppID.isValid(appID) else { throw ValidationError("/appId", "must be \(AppleAppID.expectation)") }
        return try update(id, ifMatch: ifMatch, actor: actor) { _, environment in
            guard !environment.appleAppIDs.contains(appID) else {
                throw ValidationError("/appId", "duplicates an app id registered in this environment")
            }
            environment.appleAppIDs.append(appID)
            return []
        }
    }

    /// Adds `bootKey` (64 hex digits) to the Key Attestation policy's boot keys (the Traffic tab's one-click fix).
    /// - Throws: `ValidationError` for a key that is not one, or a policy that holds the most it may; what ``update``
    ///   throws.
    public func addBootKey(_ bootKey: String, to id: String, ifMatch: String? = nil, actor: AuditActor) throws -> Environment {
        let key = bootKey.lowercased()
        guard key.count == 64, key.allSatisfy(\.isHexDigit) else { throw ValidationError("/bootKey", "must be 64 hex digits (a verifiedBootKey)") }
        return try update(id, ifMatch: ifMatch, actor: actor) { _, environment in
            guard !environment.keyAttestation.bootKeys.contains(key) else { return [] }
            guard environment.keyAttestation.bootKeys.count < KeyAttestationPolicyFields.maxBootKeys else {
                throw ValidationError("/keyAttestation/bootKeys", "holds \(KeyAttestationPolicyFields.maxBootKeys) boot keys already: remove one on the Apps tab first")
            }
            environment.keyAttestation.bootKeys.append(key)
            return []
        }
    }

    /// Removes a registered Apple app id; throws `DomainError.notFound` when it is not registered.
    public func removeAppleAppID(_ appID: String, from id: String, actor: AuditActor) throws -> Environment {
        try update(id, actor: actor) { _, environment in
            guard let index = environment.appleAppIDs.firstIndex(of: appID) else {
                throw DomainError.notFound("\(appID) is not registered in \(environment.name)")
            }
            environment.appleAppIDs.remove(at: index)
            return []
        }
    }

    static let duplicatePackage = ValidationError(
        "/packageName", "duplicates an app registered in this environment: register each package once and list all its digests there")

    /// The index of the Android app registered as `packageName`; throws `DomainError.notFound`.
    static func androidApp(_ packageName: String, in environment: Environment) throws -> Int {
        guard let index = environment.androidApps.firstIndex(where: { $0.packageName == packageName }) else {
            throw DomainError.notFound("\(packageName) is not registered in \(environment.name)")
        }
        return index
    }
}
