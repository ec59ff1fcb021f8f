import Foundation
import Hummingbird
import UNITIProtocol
import UNITIServer

/// Track Your Hearing on the study server: the rewards of its questionnaires (`GET /api/v1/rewards`,
/// ``RewardRoutes``), computed from the sheets the server holds (``RewardRules``). A study turns
/// them on with `uniti-server study update ID --rewards on`.
package struct TrackYourHearingServerPart: APIRoutesProviding, PersonalDataHolding {
    static let moduleID = ModuleID.tyh

    package init() {}

    package var id: ModuleID { Self.moduleID }

    package func registerAPI(on api: RouterGroup<APIContext>, environment: ServerEnvironment) {
        RewardRoutes(environment: environment).register(on: api)
    }

    /// The rewards as the person's devices see them, in their data download.
    package func personalData(userId: Int64, environment: ServerEnvironment) async throws -> [String: JSONValue] {
        let statuses = try await environment.store.rewardSheets(userId: userId).map { RewardRules.status(studyId: $0.studyId, sheets: $0.sheets) }
        return ["rewards": try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(statuses))]
    }

    /// None yet: the rewards are computed from the core's sheets (`answer_sheets.reminded_at`,
    /// `studies.rewards`).
    package var personalTables: [String] { [] }
}
