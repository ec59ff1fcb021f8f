/// The tables behind ``TrialStore``, SQLite's `v22-trials` and PostgreSQL's `pg20-trials`, and the blinding:
/// - `trials`: a randomised study's design (``TrialDesign`` as JSON) and its secret seed (32
///   bytes, base64), which no page shows; the design is fixed once the first participant is
///   randomised;
/// - `allocations`: one row per allocation, numbered in the order made (`sequence`), with the
///   participant's levels, stratum, place in the stratum and arm. `PRIMARY KEY (study_id,
///   sequence)` and `UNIQUE (study_id, stratum, place)` make a second server process that
///   computed the same next allocation fail and try again, so no place is given twice;
///   `UNIQUE (study_id, user_id)` randomises a person once. When an account is erased its
///   allocation stays without the person (`user_id` NULL): the sequence must stay whole for
///   `randomisation verify` and for the allocations after it;
/// - `trial_blinding` (SQLite `v23-trial-blinding`, PostgreSQL `pg21-trial-blinding`): the staff
///   members a study's owner made blind to allocation (its analysts): they see arms as codes.
enum TrialSchema {
    static let v23 = """
        CREATE TABLE trial_blinding (
            study_id TEXT NOT NULL REFERENCES studies(id) ON DELETE CASCADE,
            staff_id INTEGER NOT NULL REFERENCES staff(id) ON DELETE CASCADE,
            since REAL NOT NULL,
            PRIMARY KEY (study_id, staff_id)
        );
        """

    static let pg21 = """
        CREATE TABLE trial_blinding (
            study_id text NOT NULL REFERENCES studies(id) ON DELETE CASCADE,
            staff_id bigint NOT NULL REFERENCES staff(id) ON DELETE CASCADE,
            since double precision NOT NULL,
            PRIMARY KEY (study_id, staff_id)
        );
        """

    static let v22 = """
        CREATE TABLE trials (
            study_id TEXT PRIMARY KEY REFERENCES studies(id) ON DELETE CASCADE,
            design TEXT NOT NULL,
            seed TEXT NOT NULL,
            created_at REAL NOT NULL
        );
        CREATE TABLE allocations (
            study_id TEXT NOT NULL REFERENCES trials(study_id) ON DELETE CASCADE,
            sequence INTEGER NOT NULL,
            user_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
            levels TEXT NOT NULL,
            stratum TEXT NOT NULL,
            place INTEGER NOT NULL,
            arm TEXT NOT NULL,
            allocated_at REAL NOT NULL,
            allocated_by INTEGER REFERENCES staff(id) ON DELETE SET NULL,
            PRIMARY KEY (study_id, sequence),
            UNIQUE (study_id, stratum, place),
            UNIQUE (study_id, user_id)
        );
        """

    static let pg20 = """
        CREATE TABLE trials (
            study_id text PRIMARY KEY REFERENCES studies(id) ON DELETE CASCADE,
            design text NOT NULL,
            seed text NOT NULL,
            created_at double precision NOT NULL
        );
        CREATE TABLE allocations (
            study_id text NOT NULL REFERENCES trials(study_id) ON DELETE CASCADE,
            sequence integer NOT NULL,
            user_id bigint REFERENCES users(id) ON DELETE SET NULL,
            levels text NOT NULL,
            stratum text NOT NULL,
            place integer NOT NULL,
            arm text NOT NULL,
            allocated_at double precision NOT NULL,
            allocated_by bigint REFERENCES staff(id) ON DELETE SET NULL,
            PRIMARY KEY (study_id, sequence),
            UNIQUE (study_id, stratum, place),
            UNIQUE (study_id, user_id)
        );
        """
}
