import Attestation
import AttestationTesting
import Crypto
import JSON
import Testing

/// Classic (`nonce`) and standard (`requestHash`) payloads, Google's decode answer, and payload shapes Google sends
/// when it could not evaluate everything.
@Suite struct PlayIntegrityPayloadShapeTests {
    @Test func classicPayloadsAreBoundByTheirNonce() throws {
        var scene = try PlayIntegrityScene()
        scene.payload.classic = true
        scene.payload.requestHash = "R2Rra24yNDVlNWU1ZDc0NTU1NGFhYTk0OTg2NzQwNDg"
        scene.request.requestHash = "R2Rra24yNDVlNWU1ZDc0NTU1NGFhYTk0OTg2NzQwNDg"
        #expect(try scene.judge().verdict == .verified)
        #expect(scene.payload.json["requestDetails"]?["requestHash"] == nil)
        scene.request.requestHash = "R2Rra24yNDVlNWU1ZDc0NTU1NGFhYTk0OTg2NzQwNDh"
        #expect(try scene.judge().verdict.reasons == ["requestMismatch"])
    }

    @Test func standardPayloadsAreBoundByTheirRequestHash() throws {
        var scene = try PlayIntegrityScene()
        #expect(scene.payload.json["requestDetails"]?["nonce"] == nil)
        #expect(try scene.judge().verdict == .verified)
        scene.request.requestHash = PlayIntegrityScene.requestHash.uppercased()
        #expect(try scene.judge().verdict.reasons == ["requestMismatch"])
    }

    @Test func googlesDecodeAnswerIsJudgedByTheSameChecks() throws {
        var scene = try PlayIntegrityScene()
        scene.payload.appLicensingVerdict = "UNLICENSED"
        let answer = JSON.object([JSON.Member("tokenPayloadExternal", scene.payload.json)])
        let payload = try #require(PlayIntegrityEvaluator.tokenPayload(fromDecodeResponse: answer))
        let judgement = scene.evaluator.evaluate(payload: payload, registration: scene.registration, request: scene.request,
                                                 now: PlayIntegrityScene.now, seenBefore: false)
        #expect(judgement.verdict.reasons == ["unlicensed"])
        #expect(PlayIntegrityEvaluator.tokenPayload(fromDecodeResponse: ["error": "x"]) == nil)
        #expect(PlayIntegrityEvaluator.tokenPayload(fromDecodeResponse: ["tokenPayloadExternal": "x"]) == nil)
    }

    @Test func aTimestampAsANumberIsRead() throws {
        let scene = try PlayIntegrityScene()
        var json = scene.payload.json
        guard case .object(var members) = json, case .object(var request)? = members.first?.value else {
            Issue.record("unexpected payload shape")
            return
        }
        request.removeAll { $0.key == "timestampMillis" }
        request.append(JSON.Member("timestampMillis", .int(PlayIntegrityScene.now)))
        members[0].value = .object(request)
        json = .object(members)
        let judgement = scene.evaluator.evaluate(payload: json, registration: scene.registration, request: scene.request,
                                                 now: PlayIntegrityScene.now, seenBefore: false)
        #expect(judgement.verdict == .verified)
    }

    @Test func anUnevaluatedAppIsJudgedByItsVerdictNotAsARegistrationFault() throws {
        // Google leaves out packageName and the certificates when it did not evaluate the app.
        var scene = try PlayIntegrityScene()
        scene.payload.appRecognitionVerdict = "UNEVALUATED"
        scene.payload.packageName = nil
        scene.payload.certificateDigests = []
        scene.payload.deviceRecognitionVerdict = []
        let judgement = try scene.judge()
        #expect(judgement.verdict.reasons == ["appVerdict:UNEVALUATED", "deviceIntegrityNotMet"])
        #expect(judgement.observed.packageName == PlayIntegrityScene.packageName)
        #expect(judgement.observed.certificateDigests == [])
    }

    @Test func anEmptyPayloadFailsEveryCheckItCan() throws {
        let scene = try PlayIntegrityScene()
        let judgement = try scene.judge(token: scene.minter.token(.object([])))
        #expect(judgement.verdict.reasons == ["requestMismatch", "staleVerdict", "packageNotRegistered", "appVerdict:UNEVALUATED", "deviceIntegrityNotMet"])
        #expect(judgement.observed == .empty)
    }

    @Test func oddValuesNeverReachAReasonCodeOrObservation() throws {
        var scene = try PlayIntegrityScene()
        scene.payload.appRecognitionVerdict = "not <an> identifier"
        scene.payload.appsDetected = ["x\u{0}y"]
        let judgement = try scene.judge()
        #expect(judgement.verdict.reasons == ["appVerdict:UNKNOWN"])
        #expect(judgement.observed.appRecognitionVerdict == "UNKNOWN")
        #expect(judgement.observed.appsDetected == ["UNKNOWN"])
    }
}
