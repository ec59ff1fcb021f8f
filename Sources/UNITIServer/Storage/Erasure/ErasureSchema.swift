/// The table behind `maintenance compact --if-needed` (``ServerStore/compactPersonalTables(ifNeeded:)``):
/// one row counting the erasures made (an account deleted, a study's answers deleted on leaving)
/// and how many of them the last compaction covered. Counts, not times, so that an erasure made
/// while a compaction runs is never taken for compacted. A store that had the server before this
/// step starts with one erasure not yet compacted, since erasures made before it were not counted.
enum ErasureSchema {
    /// SQLite `v17-erasure-marks`.
    static let v17 = """
        CREATE TABLE erasure_marks (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            erasures INTEGER NOT NULL,
            compacted INTEGER NOT NULL
        );
        INSERT INTO erasure_marks (id, erasures, compacted) VALUES (1, 1, 0);
        """

    /// PostgreSQL `pg14-erasure-marks`: the same table.
    static let pg14 = """
        CREATE TABLE erasure_marks (
            id integer PRIMARY KEY CHECK (id = 1),
            erasures bigint NOT NULL,
            compacted bigint NOT NULL
        );
        INSERT INTO erasure_marks (id, erasures, compacted) VALUES (1, 1, 0)
        """
}
