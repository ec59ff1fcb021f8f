import Foundation
import Hummingbird
import UNITIProtocol

/// `/api/v1/sheets` and `/api/v1/comparison`: uploading answer sheets, reading one's own back (by
/// page, or incrementally by cursor), and the comparison with the other members of the study.
struct SheetRoutes: Sendable {
    let environment: ServerEnvironment
    var store: ServerStore { environment.store }

    /// Both groups are of the authenticated API.
    func register(sheets: RouterGroup<APIContext>, api: RouterGroup<APIContext>) {
        sheets.post("") { request, context in try await upload(request, context) }
        sheets.get("") { request, context in try await list(request, context.user) }
        sheets.get("changes") { request, context in try await changes(request, context.user) }
        api.get("comparison") { request, context in try await comparison(request, context.user) }
    }

    private func upload(_ request: Request, _ context: APIContext) async throws -> AnswerSheetBatchResult {
        let user = context.user
        // Checked before anything is stored: a cursor this server did not give out stores nothing.
        let cursor = try request.queryString("cursor").map(ChangeCursor.decode)
        let batch = try await request.decode(as: AnswerSheetBatch.self, context: context)
        guard !batch.sheets.isEmpty, batch.sheets.count <= ServerLimits.maximumSheetsPerBatch else {
            throw APIError.invalid("invalid_batch", "Send 1 to \(ServerLimits.maximumSheetsPerBatch) sheets per batch.")
        }
        let (stored, receivedAt) = try await SheetIntake(environment: environment).accept(batch.sheets, userId: user.account.id)
        let received = Timestamps.format(receivedAt)
        let results = zip(batch.sheets, stored.outcomes).map {
            AnswerSheetBatchResult.Entry(id: $0.id.uuidString.lowercased(), outcome: $1, receivedAt: received)
        }
        guard let cursor else { return AnswerSheetBatchResult(results: results) }
        let next = try await store.changesCursor(userId: user.account.id, after: cursor, stored: stored.ids)
        return AnswerSheetBatchResult(results: results, cursor: next.map(ChangeCursor.encode))
    }

    private func list(_ request: Request, _ user: AuthenticatedUser) async throws -> AnswerSheetPage {
        let page = try request.queryInt("page", default: 1, range: 1...1_000_000)
        let perPage = try request.queryInt("perPage", default: 50, range: 1...ServerLimits.maximumPageSize)
        let result = try await store.sheets(userId: user.account.id, offset: (page - 1) * perPage, limit: perPage)
        return AnswerSheetPage(sheets: result.sheets, page: page, perPage: perPage, total: result.total)
    }

    /// The caller's sheets stored after the cursor, oldest first: how a device learns of the sheets
    /// answered on the person's other devices (and gives each to its `owner`).
    ///
    /// The body is ``AnswerSheetChanges`` as ``JSONCoding`` writes it (sorted keys), with each
    /// sheet's JSON spliced in as stored, which was written with the same settings: decoding and
    /// encoding every sheet again was a third of the server's work in a sync, which pulls back
    /// every sheet it sent (`Documentation/uniti-server.md`).
    private func changes(_ request: Request, _ user: AuthenticatedUser) async throws -> Response {
        let cursor = try request.queryString("cursor").map(ChangeCursor.decode) ?? 0
        let limit = try request.queryInt("limit", default: ServerLimits.maximumPageSize, range: 1...ServerLimits.maximumPageSize)
        let page = try await store.sheetChanges(userId: user.account.id, after: cursor, limit: limit)
        var body = #"{"cursor":"# + (try JSONCoding.string(ChangeCursor.encode(page.cursor))) + #","more":\#(page.more),"sheets":["#
        for (index, stored) in page.sheets.enumerated() {
            body += (index > 0 ? "," : "") + #"{"receivedAt":"# + (try JSONCoding.string(stored.receivedAt)) + #","sheet":"# + stored.json
                + #","studyId":"# + (try JSONCoding.string(stored.studyId)) + "}"
        }
        body += "]}"
        let buffer = ByteBuffer(string: body)
        return Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8", .contentLength: "\(buffer.readableBytes)"],
                        body: .init(byteBuffer: buffer))
    }

    private func comparison(_ request: Request, _ user: AuthenticatedUser) async throws -> ComparisonReport {
        guard let questionnaireId = request.queryString("questionnaire"), !questionnaireId.isEmpty, questionnaireId.count <= 128,
              let label = request.queryString("label"), !label.isEmpty, label.count <= 128 else {
            throw APIError.badRequest("invalid_query", "Give 'questionnaire' and 'label' (and optionally 'from' and 'to' as ISO 8601 times).")
        }
        func time(_ name: String) throws -> Date? {
            guard let raw = request.queryString(name) else { return nil }
            guard let date = Timestamps.parse(raw) else {
                throw APIError.badRequest("invalid_query", "'\(name)' must be an ISO 8601 time with a UTC offset, e.g. 2026-11-01T00:00:00Z.")
            }
            return date
        }
        // Another study's questionnaire is answered like an unknown one (see StudyRoutes).
        let unknown = APIError.notFound("No questionnaire '\(questionnaireId)' that you may compare.")
        guard let studyId = try await store.studyId(ofQuestionnaire: questionnaireId),
              let study = try await store.study(id: studyId) else { throw unknown }
        let membership = try await store.membership(studyId: studyId, userId: user.account.id)
        guard StudyPresenter.mayReadContent(study, membership: membership) else { throw unknown }
        let from = try time("from")
        let to = try time("to")
        // Within the study: only its current members are compared (someone who left is not).
        let figures = try await store.comparisonFigures(questionnaireId: questionnaireId, studyId: studyId, label: label, from: from, to: to,
                                                        userId: user.account.id)
        let result = Comparison.compute(questionnaireId: questionnaireId, label: label, figures: figures,
                                        minimumParticipants: environment.comparisonMinimumParticipants)
        return result
    }
}
