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

    /// The route's part of the OpenAPI document the server serves.
    static let documentation = APIDocumentation(
        paths: """
              /rewards:
                get:
                  operationId: listRewards
                  summary: >-
                    The caller's Track Your Hearing rewards: one status per study the caller is a member of that has rewards
                    on, in the order joined; an empty list when there is none. Computed by the server from the caller's
                    completed sheets of the study's questionnaires presented by tyh (never another person's, never the answers'
                    values): 10 points per sheet, 5 more when it was started 0 to 3600 s after its remindedAt; at most 12 sheets
                    count per local day (the day of endedAt, else startedAt, in the sheet's own offset); streaks of consecutive
                    such days; levels from 0, 100, 250, 500, 1000, 2000 and 4000 points; badges first-sheet, sheets-10,
                    sheets-50, sheets-100, streak-3, streak-7, streak-30 and on-time-10, each once. One ETag for the whole list
                    (If-None-Match gives 304).
                  parameters:
                    - $ref: "#/components/parameters/IfNoneMatch"
                  responses:
                    "200":
                      description: The rewards.
                      headers:
                        ETag: { $ref: "#/components/headers/ETag" }
                      content:
                        application/json:
                          schema: { $ref: "#/components/schemas/RewardList" }
                    "304": { $ref: "#/components/responses/NotModified" }
                    "401": { $ref: "#/components/responses/Error" }
                    default: { $ref: "#/components/responses/Error" }
            """,
        schemas: """
                RewardBadge:
                  type: object
                  required: [id, earnedAt]
                  properties:
                    id:
                      type: string
                      enum: [first-sheet, sheets-10, sheets-50, sheets-100, streak-3, streak-7, streak-30, on-time-10]
                    earnedAt:
                      type: string
                      format: date-time
                      description: When the sheet that earned it was finished (endedAt, else startedAt), with the person's offset.
                RewardStatus:
                  type: object
                  required: [studyId, points, level, completed, onTime, currentStreak, longestStreak, badges]
                  properties:
                    studyId: { type: string }
                    points: { type: integer, minimum: 0 }
                    level: { type: integer, minimum: 1, maximum: 7 }
                    nextLevelAt:
                      type: integer
                      description: The points at which the next level starts; absent at the highest level (7).
                    completed: { type: integer, minimum: 0, description: Completed sheets counted for rewards. }
                    onTime: { type: integer, minimum: 0, description: How many of them were started within the hour after their reminder. }
                    currentStreak:
                      type: integer
                      minimum: 0
                      description: Consecutive local days with a counted sheet, up to the day of the last one (the client decides whether it is still alive).
                    longestStreak: { type: integer, minimum: 0 }
                    lastDay:
                      type: string
                      format: date
                      description: The local date of the last counted sheet; absent before the first.
                    badges:
                      type: array
                      description: In the order earned.
                      items: { $ref: "#/components/schemas/RewardBadge" }
                RewardList:
                  type: object
                  required: [studies]
                  properties:
                    studies:
                      type: array
                      items: { $ref: "#/components/schemas/RewardStatus" }
            """)
}
