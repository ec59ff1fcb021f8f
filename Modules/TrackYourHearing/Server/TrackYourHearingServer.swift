import Foundation
import Hummingbird
import UNITIProtocol
import UNITIServer

/// Track Your Hearing on the study server: the rewards of its questionnaires (`GET /api/v1/rewards`,
/// ``RewardRoutes``), computed from the sheets the server holds (``RewardRules``). A study turns
/// them on with its switch `rewards` (``rewardsSwitch``: `uniti-server study update ID --rewards
/// on`, or the console's settings form).
///
/// Everything of the rewards is here: the switch, the route and its OpenAPI description
/// (``RewardRoutes/documentation``), the schema step that moved the switch out of the server's
/// `studies` table (``migrations``), and the reads (``ServerStore/rewardSheets(userId:)``).
package struct TrackYourHearingServerPart: APIRoutesProviding, PersonalDataHolding, StudySwitchesProviding, ServerSchemaExtending {
    static let moduleID = ModuleID.tyh

    /// Whether a study's members get rewards for their sheets; off until a coordinator turns it on.
    static let rewardsSwitch = StudySwitch(module: moduleID, name: "rewards", labelKey: "console.settings.rewards",
                                           help: "Track Your Hearing rewards for the members' sheets")

    package init() {}

    package var id: ModuleID { Self.moduleID }

    package func registerAPI(on api: RouterGroup<APIContext>, environment: ServerEnvironment) {
        RewardRoutes(environment: environment).register(on: api)
    }

    package var apiDocumentation: APIDocumentation { RewardRoutes.documentation }

    package var studySwitches: [StudySwitch] { [Self.rewardsSwitch] }

    /// `tyh-rewards-switch`: the server kept the switch as `studies.rewards` (its step
    /// `v5-study-rewards`, PostgreSQL's `pg1-schema`) before modules had switches; this step
    /// carries every study's setting over to the modules' switches and drops the column. (The
    /// sheets' reminders, once copied to `answer_sheets.reminded_at`, were always in the sheets
    /// themselves; the server's step `v19`/`pg17` dropped that copy.)
    package var migrations: [ServerMigration] {
        [ServerMigration(
            "rewards-switch",
            sqlite: """
                INSERT INTO study_module_switches (study_id, module, name) SELECT id, 'tyh', 'rewards' FROM studies WHERE rewards = 1;
                ALTER TABLE studies DROP COLUMN rewards;
                """,
            postgres: """
                INSERT INTO study_module_switches (study_id, module, name) SELECT id, 'tyh', 'rewards' FROM studies WHERE rewards;
                ALTER TABLE studies DROP COLUMN rewards;
                """)]
    }

    /// The rewards as the person's devices see them, in their data download.
    package func personalData(userId: Int64, environment: ServerEnvironment) async throws -> [String: JSONValue] {
        let statuses = try await environment.store.rewardSheets(userId: userId).map { RewardRules.status(studyId: $0.studyId, sheets: $0.sheets) }
        return ["rewards": try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(statuses))]
    }

    /// None: the rewards are computed from the server's sheets, and the switch is the study's.
    package var personalTables: [String] { [] }
}
