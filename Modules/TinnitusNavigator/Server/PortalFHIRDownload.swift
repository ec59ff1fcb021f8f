import Foundation
import Hummingbird
import TinnitusNavigatorShared
import UNITIProtocol
import UNITIServer

/// `/data/record.fhir.json`: the person's health data as one FHIR R4 `collection` bundle, for a
/// doctor's or another study's system. The same mapping as the shell's `tn export --fhir`
/// (``HealthRecordBundle``), over what this server keeps of the person:
/// - every answer sheet they sent (any module), and the TinnitusNavigator questionnaires
///   completed in the shell that no study server collected as a sheet, each once, as a
///   `QuestionnaireResponse` beside the `Questionnaire` version it answered;
/// - the TinnitusNavigator record: audiograms, therapies, events.
///
/// The `Patient` is named by the account's study pseudonym only (hashed into a resource id), as
/// the coordinator's export names participants, so the file carries no name, e-mail or login.
/// Times are written in the zone of the person's newest sheet (its UTC offset), else in UTC:
/// the server keeps no time zone of its own for a person.
extension PortalRoutes {
    package func exportFHIR(_ context: ParticipantContext) async throws -> Response {
        let bundle = try await healthRecordBundle(context.participant.account, language: context.visit.language)
        var body = Data()
        let writer = FHIRCollectionWriter(timestamp: bundle.timestamp) { body.append($0) }
        try bundle.forEachEntry { try writer.append($0) }
        try writer.finish()
        let day = Timestamps.format(environment.clock.now()).prefix(10)
        return Response(status: .ok, headers: [
            .contentType: "application/fhir+json; charset=utf-8",
            .contentDisposition: "attachment; filename=\"uniti-record-\(day).fhir.json\"",
        ], body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    func healthRecordBundle(_ account: UserAccount, language: String) async throws -> HealthRecordBundle {
        let store = environment.store
        let record = PortalHealthRecord(store: store, clock: environment.clock, userId: account.id)
        var sheets = try await ownSheets(account.id).map(\.sheet)
        let sent = Set(sheets.map(\.id))
        sheets += try await record.payloads(CompletedSheet.self, kind: CompletedSheet.recordKind).map(\.sheet).filter { !sent.contains($0.id) }
        sheets.sort { (($0.endedAt ?? $0.startedAt).date, $0.id.uuidString) < (($1.endedAt ?? $1.startedAt).date, $1.id.uuidString) }

        var definitions: [QuestionnaireKey: QuestionnaireDefinition?] = [:]
        var responses: [HealthRecordBundle.Response] = []
        for sheet in sheets {
            let key = QuestionnaireKey(id: sheet.questionnaireID, version: sheet.questionnaireVersion)
            if definitions[key] == nil {
                definitions[key] = .some(try await store.questionnaire(id: key.id, version: key.version)?.definition)
            }
            responses.append(HealthRecordBundle.Response(id: sheet.id.uuidString.lowercased(), sheet: sheet, definition: definitions[key] ?? nil))
        }
        let zone = sheets.max { $0.startedAt.date < $1.startedAt.date }
            .flatMap { TimeZone(secondsFromGMT: $0.startedAt.offsetSeconds) } ?? TimeZone(identifier: "UTC")!
        return HealthRecordBundle(
            patient: PseudonymousPatient(id: .named("uniti-server/patient/\(account.pseudonym)")),
            words: FHIRExportWords { PortalText.text($0, language, $1) }, now: environment.clock.now(), timeZone: zone,
            responses: responses, audiograms: try await record.entries(Audiogram.self),
            therapies: try await record.entries(Therapy.self), events: try await record.entries(HealthEvent.self))
    }
}

/// A questionnaire the shell's TinnitusNavigator completed (its synced record of kind
/// `completed`): the server reads only the sheet in it.
struct CompletedSheet: Decodable {
    static let recordKind = "completed"
    var sheet: AnswerSheet
}
