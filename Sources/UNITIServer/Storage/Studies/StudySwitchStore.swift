import Foundation
import UNITIProtocol

/// The switches modules add to studies (``StudySwitch``), SQLite's `v19-study-module-switches`
/// and PostgreSQL's `pg17-study-module-switches`: `study_module_switches` has one row per switch
/// that is on (module, name), none for one that is off, so a module installed later starts with
/// its switches off everywhere and a module removed leaves rows nobody reads.
///
/// The same steps drop `answer_sheets.reminded_at`: Track Your Hearing's rewards read a sheet's
/// reminder from the sheet as sent (`answer_sheets.sheet`, which always held it), so the server's
/// own table no longer keeps a copy for one module.
enum StudySwitchSchema {
    static let v19 = """
        CREATE TABLE study_module_switches (
            study_id TEXT NOT NULL REFERENCES studies(id) ON DELETE CASCADE,
            module TEXT NOT NULL,
            name TEXT NOT NULL,
            PRIMARY KEY (study_id, module, name)
        );
        ALTER TABLE answer_sheets DROP COLUMN reminded_at;
        """

    static let pg17 = """
        CREATE TABLE study_module_switches (
            study_id text NOT NULL REFERENCES studies(id) ON DELETE CASCADE,
            module text NOT NULL,
            name text NOT NULL,
            PRIMARY KEY (study_id, module, name)
        );
        ALTER TABLE answer_sheets DROP COLUMN reminded_at;
        """
}

/// Which module switches are on, per study.
extension ServerStore {
    /// The switches that are on for the study, of any module (installed or not).
    func studySwitches(studyId: String) async throws -> Set<StudySwitch.Key> {
        Set(try await database.rows("SELECT module, name FROM study_module_switches WHERE study_id = \(studyId)").map { row in
            let module: String = try row["module"]
            guard let id = ModuleID(rawValue: module) else { throw StoreCorruption("study_module_switches names no module id: '\(module)'") }
            return StudySwitch.Key(module: id, name: try row["name"])
        })
    }

    /// Turns each of `switches` on or off for the study (the others stay as they are).
    func setStudySwitches(studyId: String, _ switches: [StudySwitch.Key: Bool]) async throws {
        for (key, on) in switches.sorted(by: { $0.key < $1.key }) {
            if on {
                try await database.execute("""
                    INSERT INTO study_module_switches (study_id, module, name) VALUES (\(studyId), \(key.module.rawValue), \(key.name))
                    ON CONFLICT DO NOTHING
                    """)
            } else {
                try await database.execute("""
                    DELETE FROM study_module_switches WHERE study_id = \(studyId) AND module = \(key.module.rawValue) AND name = \(key.name)
                    """)
            }
        }
    }

    /// The studies the user is a `member` of whose switch `key` is on, in the order joined: what
    /// a module offers its members only where the study turned it on.
    package func joinedStudies(userId: Int64, withSwitch key: StudySwitch.Key) async throws -> [String] {
        try await database.rows("""
            SELECT m.study_id FROM memberships m
            JOIN study_module_switches w ON w.study_id = m.study_id AND w.module = \(key.module.rawValue) AND w.name = \(key.name)
            WHERE m.user_id = \(userId) AND m.status = 'member'
            ORDER BY COALESCE(m.joined_at, m.updated_at), m.study_id
            """).map { try $0["study_id"] }
    }
}

extension StudySwitch {
    /// What names a switch in the store: its module and name.
    package struct Key: Sendable, Hashable, Comparable {
        package var module: ModuleID
        package var name: String

        package init(module: ModuleID, name: String) {
            self.module = module
            self.name = name
        }

        package static func < (a: Key, b: Key) -> Bool {
            (a.module.rawValue, a.name) < (b.module.rawValue, b.name)
        }
    }

    package var key: Key { Key(module: module, name: name) }
}
