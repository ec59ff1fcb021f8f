import Foundation
import Hummingbird
import UNITIProtocol

/// `GET /api/v1/rewards`: the caller's Track Your Hearing rewards, one status per joined study
/// with rewards on (``RewardRules``), computed from the sheets the server holds, so they are the
/// same on every device and cannot be raised by editing one. With an ETag, like the other lists.
struct RewardRoutes: Sendable {
    let environment: ServerEnvironment
    var store: ServerStore { environment.store }
    var auth: Authenticator { Authenticator(environment: environment) }

    func register(on api: RouterGroup<ServerRequestContext>) {
        api.get("rewards") { request, _ in try await list(request) }
    }

    private func list(_ request: Request) async throws -> Response {
        let user = try await auth.user(request)
        let studies = try await store.rewardSheets(userId: user.account.id).map {
            RewardRules.status(studyId: $0.studyId, sheets: $0.sheets)
        }
        return try JSONResponse.withETag(RewardList(studies: studies), request: request)
    }
}
