import Foundation
import GRDB
import Testing
@testable import UNITICore
import UNITIProtocol
import UNITITesting

/// Whether a sheet reached the study server, and why not yet (Tinnitus Navigator thesis FR8):
/// what `tys sheets` and `tn completed` show beside every sheet.
@Suite("Sheet upload states", .timeLimit(.minutes(10)))
struct SheetUploadTests {
    typealias Fixture = StudyQuestionnaireServiceTests

    /// A harness with a joined study's questionnaire, one finished sheet of it queued for upload,
    /// and (unless `loggedIn` is false) a session.
    static func queuedSheet(loggedIn: Bool = true) throws -> (ModuleHarness, AnswerSheet) {
        let harness = try Fixture.harness()
        try Fixture.apply(harness, [try Fixture.entry(Fixture.definition("once"))])
        let stamp = OffsetTimestamp(Fixture.now, in: ModuleHarness.berlin)
        let sheet = AnswerSheet(id: UUID(), questionnaireID: "once", questionnaireVersion: 1,
                                answers: ["stress": Answer(value: .number(50), answeredAt: stamp)],
                                startedAt: stamp, endedAt: stamp, clientVersion: "test", owner: .tys)
        try harness.database.writer.write { db in
            try AnswerSheetStore(database: harness.services.database, clock: harness.clock).save(sheet, owner: .tys, in: db)
            try SheetOutbox.enqueue(db, owner: .tys, sheet: sheet, at: Fixture.now)
        }
        if loggedIn {
            try harness.services.sessions.save(Session(username: "nora", tokens: SessionTokens(
                accessToken: "a", refreshToken: "r", expiresAt: "2026-11-23T11:00:00Z", refreshExpiresAt: "2026-12-23T10:00:00Z")))
        }
        return (harness, sheet)
    }

    static func upload(_ harness: ModuleHarness) throws -> SheetUpload {
        let sheets = try StudyQuestionnaires(services: harness.services, module: .tys).sheets()
        #expect(sheets.count == 1)
        return try #require(sheets.first).upload
    }

    @Test("a queued sheet waits for the next sync, for a login, or for the server it could not reach")
    func waiting() throws {
        let (harness, _) = try Self.queuedSheet()
        #expect(try Self.upload(harness) == .waiting(.nextSync))
        let outbox = Outbox(database: harness.services.database)
        var random = SystemRandomNumberGenerator()
        try outbox.recordFailure(try outbox.due(at: Fixture.now), error: "connection refused", at: Fixture.now, using: &random)
        #expect(try Self.upload(harness) == .waiting(.offline))
        try harness.services.sessions.clear()
        #expect(try Self.upload(harness) == .waiting(.loggedOut))
        let (loggedOut, _) = try Self.queuedSheet(loggedIn: false)
        #expect(try Self.upload(loggedOut) == .waiting(.loggedOut))
    }

    @Test("a sheet the server holds back waits for consent or for its questionnaire; a refused one names the reason in the person's language")
    func heldAndRefused() throws {
        let (harness, _) = try Self.queuedSheet()
        let outbox = Outbox(database: harness.services.database)
        try outbox.wait(try outbox.due(at: Fixture.now), code: AnswerSheetBatchResult.consentRequiredCode,
                        reason: "Study 's1' asks for your consent to its version 2; read it and agree to that version.")
        #expect(try Self.upload(harness) == .waiting(.consent))
        #expect(try Self.upload(harness).waitingFor == "consent")

        let (other, _) = try Self.queuedSheet()
        let otherOutbox = Outbox(database: other.services.database)
        try otherOutbox.reject(try #require(try otherOutbox.due(at: Fixture.now).first), code: "not_a_member",
                               reason: "You are not a participant of study 's1'.")
        try CurrentLanguage.$scope.withValue(LockedValue(.german)) { () throws in
            #expect(try Self.upload(other) == .refused("Sie nehmen an dieser Studie nicht teil."))
            #expect(try Self.upload(other).text == "vom Server abgelehnt: Sie nehmen an dieser Studie nicht teil.")
        }
    }

    @Test("a delivered sheet is uploaded; after leaving its study with deletion it is marked deleted from the server and stays here")
    func uploadedThenErased() throws {
        let (harness, sheet) = try Self.queuedSheet()
        let outbox = Outbox(database: harness.services.database)
        try outbox.acknowledge(try outbox.due(at: Fixture.now))
        #expect(try Self.upload(harness) == .uploaded)

        // Leaving without deletion changes nothing of the sheet.
        try harness.services.studies.recordLeft("s1")
        #expect(try Self.upload(harness) == .uploaded)
        try harness.services.studies.recordLeft("s1", erasingAnswersAt: Fixture.now)
        #expect(try Self.upload(harness) == .erasedFromServer)
        let kept = try StudyQuestionnaires(services: harness.services, module: .tys).sheets()
        #expect(kept.map(\.sheet.id) == [sheet.id])
    }
}
