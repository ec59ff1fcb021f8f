import Foundation
import Hummingbird
import UNITIProtocol
import UNITIServer

/// `GET /api/v1/rewards`: the caller's Track Your Hearing rewards, one status per joined study
/// with rewards on (``RewardRules``), computed from the sheets the server holds, so they are the
/// same on every device and cannot be raised by editing one. With an ETag, like the other lists.
struct RewardRoutes: Sendable {
    let environment: ServerEnvironment
    var store: ServerStore { environment.store }

    /// A group of the authenticated API.
    func register(on api: RouterGroup<APIContext>) {
        api.get("rewards") { _, context in try await list(context.user) }
    }

    private func list(_ user: AuthenticatedUser) async throws -> ETagged<RewardList> {
        let studies = try await store.rewardSheets(userId: user.account.id).map {
            RewardRules.status(studyId: $0.studyId, sheets: $0.sheets)
        }
        return ETagged(RewardList(studies: studies))
    }
}
