import Gatehouse
import HTTP
import HTTPServer
import JSON
import Mustache

/// The checklist's one-click fix: add the certificate digest phones report to a registered Android app, after a
/// confirmation page that shows exactly what changes and why. It goes through the same patch and validation as
/// `PATCH /api/management/v1/environments/{id}`.
extension TrafficController {
    /// `GET /environments/{environmentId}/traffic/add-digest?package=…&digest=…`: the confirmation page.
    func addDigestPage(_ request: Request) throws -> Response {
        let context = try pages.context(request)
        let environment = try environments.get(try request.parameter("environmentId"))
        let proposal = try digestProposal(environment, package: request.queryValue("package"), digest: request.queryValue("digest"))
        return addDigestView(context, environment: environment, proposal: proposal, errors: [], status: 200)
    }

    /// `POST` of the confirmation: CSRF and the editor role, the patch, then back to the traffic page.
    func addDigestSubmit(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let context = try pages.editor(request, form: form)
        let environment = try environments.get(try request.parameter("environmentId"))
        let proposal = try digestProposal(environment, package: form["package"], digest: form["digest"])
        let back = "/environments/\(environment.id)/traffic"
        if proposal.alreadyRegistered {
            return try pages.done(context, to: back, flash: "\(proposal.digest) is already registered for \(proposal.package).")
        }
        do {
            _ = try environments.addCertificateDigest(proposal.bytes, toAndroidApp: proposal.package, in: environment.id,
                                                               ifMatch: form["etag"], actor: context.actor)
        } catch let error as ValidationError {
            return addDigestView(context, environment: environment, proposal: proposal,
                                 errors: error.errors.map { "\($0.pointer): \($0.message)" }, status: 422)
        }
        return try pages.done(context, to: back, flash: "Added \(proposal.digest) to \(proposal.package). Verdicts from phones "
            + "signed with it verify from now on, and the checklist counts the earlier ones as fixed.")
    }

    /// What adding a digest would change.
    struct DigestProposal {
        let package: String
        let digest: String
        let bytes: [UInt8]
        let before: [String]
        let alreadyRegistered: Bool
    }

    /// Reads and checks the package and digest; throws a 404 page for an unknown package or a malformed digest.
    func digestProposal(_ environment: Environment, package: String?, digest: String?) throws -> DigestProposal {
        guard let package, let app = environment.androidApps.first(where: { $0.packageName == package }) else {
            throw DomainError.notFound("\(environment.name) has no Android app \(package ?? "(none named)"); register it under Apps first")
        }
        guard let digest, let bytes = CertificateDigest.parse(digest) else {
            throw DomainError.notFound("that is not \(CertificateDigest.expectation)")
        }
        return DigestProposal(package: package, digest: CertificateDigest.format(bytes), bytes: bytes,
                              before: app.certificateDigests.map(CertificateDigest.format), alreadyRegistered: app.certificateDigests.contains(bytes))
    }

    func addDigestView(_ context: DashboardContext, environment: Environment, proposal: DigestProposal, errors: [String], status: Int) -> Response {
        var reported: MustacheValue = .null
        if let report = try? checklists.report(for: environment),
           let item = report.item(SetupItem.certificateNotRegistered.rawValue),
           let seen = item.evidence.observed.first(where: { $0.value == proposal.digest }) {
            reported = [
                "count": .string(Wording.number(seen.count)),
                "verdicts": .string(Wording.number(item.evidence.verdicts)),
                "share": .string(ChecklistEvidence(verdicts: item.evidence.verdicts, failing: seen.count).shareText),
            ]
        }
        return pages.page("pages/environment-traffic-add-digest", title: "Add a certificate digest · \(environment.name)", EnvironmentHead.values(environment, tab: "traffic").merging([
            "etag": .string(environment.etag),
            "package": .string(proposal.package),
            "digest": .string(proposal.digest),
            "before": .array(proposal.before.map { .string($0) }),
            "hasBefore": .bool(!proposal.before.isEmpty),
            "after": .array((proposal.before + (proposal.alreadyRegistered ? [] : [proposal.digest])).map { value in
                ["value": .string(value), "new": .bool(value == proposal.digest && !proposal.alreadyRegistered)]
            }),
            "alreadyRegistered": .bool(proposal.alreadyRegistered),
            "reported": reported,
            "errors": errors.isEmpty ? .null : .array(errors.map { .string($0) }),
        ]) { _, own in own }, context: context, status: status, section: "environments")
    }
}
