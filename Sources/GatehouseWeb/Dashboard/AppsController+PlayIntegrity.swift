import Foundation
import Gatehouse
import HTTP
import HTTPServer
import JSON
import Mustache

/// Setting and removing an environment's Play Integrity credentials: the service account's JSON key (uploaded or
/// pasted) and Play Console's local response keys. Secrets are never echoed back, not even on errors.
extension AppsController {
    func setServiceAccount(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let context = try pages.editor(request, form: form)
        let environment = try environments.get(try request.parameter("environmentId"))
        let bytes = form.files["serviceAccountFile"] ?? Array((form["serviceAccountJSON"] ?? "").utf8)
        func failed(_ message: String, _ advice: String) -> Response {
            let error = "\(message) (not shown again). \(advice)"
            return environmentAppsView(context, environment, values: ["serviceAccount": ["error": .string(error)], "problem": Self.problem("play-integrity", "the service account")], status: 422)
        }
        guard bytes.contains(where: { !($0 == 32 || $0 == 9 || $0 == 10 || $0 == 13) }) else {
            return environmentAppsView(context, environment, values: [
                "serviceAccount": ["error": "Choose the JSON key file, or paste its contents."], "problem": Self.problem("play-integrity", "the service account"),
            ], status: 422)
        }
        let document: JSON
        do {
            document = try JSONParser.parse(bytes)
        } catch {
            return failed("This is not JSON: \(error.message) at byte \(error.offset)", "Upload the key file exactly as Google Cloud downloaded it.")
        }
        let patch: EnvironmentPatch
        do {
            patch = try EnvironmentPatch.parse(.object([.init("playIntegrity", .object([.init("serviceAccount", document)]))]),
                                               tokenEndpoints: pages.configuration.domain.tokenEndpoints)
        } catch {
            let base = "/playIntegrity/serviceAccount"
            let sentences = error.errors.map { e -> String in
                let member = e.pointer.hasPrefix(base + "/") ? String(e.pointer.dropFirst(base.count + 1)) : ""
                return member.isEmpty ? "The key \(e.message)" : "Its \(member) \(e.message)"
            }
            return failed(sentences.joined(separator: ". "), "Download a new JSON key for the service account and upload it unedited.")
        }
        let updated = try environments.patch(environment.id, with: patch, actor: context.actor)
        let email = updated.playIntegrity.serviceAccountEmail ?? "unknown"
        return try pages.done(context, to: "/environments/\(environment.id)/apps", flash: "Service account set (client e-mail \(email)).")
    }

    func setLocalKeys(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let context = try pages.editor(request, form: form)
        let environment = try environments.get(try request.parameter("environmentId"))
        let decryption = (form["decryptionKey"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let verification = (form["verificationKey"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let local = JSON.object([.init("decryptionKey", .string(decryption)), .init("verificationKey", .string(verification))])
        let patch: EnvironmentPatch
        do {
            patch = try EnvironmentPatch.parse(.object([.init("playIntegrity", .object([.init("local", local)]))]))
        } catch {
            var errors: [String: MustacheValue] = [:]
            for e in error.errors {
                let field = e.pointer.hasSuffix("/verificationKey") ? "verificationKey" : "decryptionKey"
                if errors[field] == nil {
                    errors[field] = .string(field == "decryptionKey" ? e.message + " (not shown again)" : e.message)
                }
            }
            // The verification key is public and kept; the decryption key is a secret and never sent back.
            return environmentAppsView(context, environment, values: [
                "local": ["verificationKey": .string(verification), "errors": .dictionary(errors)], "problem": Self.problem("play-integrity", "the local keys"),
            ], status: 422)
        }
        let updated = try environments.patch(environment.id, with: patch, actor: context.actor)
        let fingerprint = updated.playIntegrity.localVerificationKeySHA256.map { " (verification key SHA-256 \($0.prefix(16))…)" } ?? ""
        // The same check as POST …/play-integrity/check: what the saved keys make of the recent failures.
        var found = ""
        var tone = Flash.Tone.done
        if case .set(let keys) = patch.localKeys, let result = try keyCheck.run(environmentID: environment.id, local: keys) {
            found = " " + result.summary(registeredPackages: updated.androidApps.map(\.packageName))
            if result.showsWrongKeys { tone = .warning }
        }
        return try pages.done(context, to: "/environments/\(environment.id)/apps", flash: "Local keys set\(fingerprint).\(found)",
                              tone: tone)
    }

    /// GET /environments/{id}/play-integrity/{which}/remove, `which` = service-account | local.
    func removeCredentialPage(_ request: Request) throws -> Response {
        let context = try pages.editor(request)
        let environment = try environments.get(try request.parameter("environmentId"))
        let which = try playIntegrityCredential(request)
        let otherSet = which == "service-account" ? environment.playIntegrity.localSet : environment.playIntegrity.serviceAccountSet
        let what = which == "service-account" ? "the service account" : "the local keys"
        let confirmation = Confirmation(
            title: "Remove \(what)",
            lead: "Gatehouse erases \(what) of \(environment.name). They cannot be shown or restored: to set them again, upload them again.",
            consequences: [
                otherSet
                    ? .string("verdicts are still decoded with the \(which == "service-account" ? "local keys" : "service account") (\(which == "service-account" ? "classic requests only" : "through Google"));")
                    : "no Play Integrity verdict can be decoded any more: each reports unavailable / notConfigured and moves nothing;",
                otherSet ? "under attack mode, Android installs are still asked for a verdict." : "under attack mode, Android installs are no longer asked for a verdict.",
            ],
            action: "/environments/\(environment.id)/play-integrity/\(which)/remove",
            button: which == "service-account" ? "Remove service account" : "Remove local keys",
            cancel: "/environments/\(environment.id)/apps#play-integrity")
        return pages.confirmPage(confirmation, in: environment, tab: "apps", context: context)
    }

    func removeCredential(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let context = try pages.editor(request, form: form)
        let environment = try environments.get(try request.parameter("environmentId"))
        let which = try playIntegrityCredential(request)
        var patch = EnvironmentPatch()
        if which == "service-account" { patch.serviceAccount = .remove } else { patch.localKeys = .remove }
        _ = try environments.patch(environment.id, with: patch, actor: context.actor)
        return try pages.done(context, to: "/environments/\(environment.id)/apps",
                        flash: which == "service-account" ? "Service account removed." : "Local keys removed.")
    }

    func playIntegrityCredential(_ request: Request) throws -> String {
        let which = try request.parameter("credential")
        guard which == "service-account" || which == "local" else { throw DomainError.notFound("no Play Integrity credential \(which)") }
        return which
    }
}
