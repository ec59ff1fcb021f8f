import Foundation
import Hummingbird
import UNITIProtocol

/// `POST /api/v1/prompts/events`: the person's devices send prompt lifecycle events (``PromptEvent``)
/// in batches of 1 to 500, like sheets; a repeated event (same id) is stored once, so a retry
/// after a lost response is harmless. The answer names every id the server holds now.
struct PromptRoutes: Sendable {
    let environment: ServerEnvironment

    /// A group of the authenticated API.
    func register(on group: RouterGroup<APIContext>) {
        group.post("events") { request, context in try await push(request, context) }
    }

    private func push(_ request: Request, _ context: APIContext) async throws -> PromptEventBatchResult {
        let user = context.user
        let batch = try await request.decode(as: PromptEventBatch.self, context: context)
        guard !batch.events.isEmpty, batch.events.count <= ServerLimits.maximumSheetsPerBatch else {
            throw APIError.invalid("invalid_batch", "Send 1 to \(ServerLimits.maximumSheetsPerBatch) prompt events per batch.")
        }
        for event in batch.events {
            guard ModuleID.isValid(event.moduleId), (1...200).contains(event.promptId.count),
                  (event.questionnaireId?.count ?? 0) <= 200, (event.channel?.count ?? 0) <= 32 else {
                throw APIError.invalid("invalid_prompt_event",
                                       "Prompt event \(event.id.uuidString.lowercased()): a module id, a prompt id of 1 to 200 characters, a questionnaire id of at most 200 and a channel of at most 32.")
            }
            guard event.id == PromptEvent.eventID(promptId: event.promptId, kind: event.kind) else {
                throw APIError.invalid("invalid_prompt_event",
                                       "Prompt event \(event.id.uuidString.lowercased()): the id must be the one its prompt and kind give.")
            }
        }
        let stored = try await environment.store.storePromptEvents(userId: user.account.id, events: batch.events,
                                                                   receivedAt: environment.clock.now())
        return PromptEventBatchResult(stored: stored)
    }
}
