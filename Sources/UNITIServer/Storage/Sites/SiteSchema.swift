/// The tables behind ``ServerStore``'s sites (issue 48), SQLite's `v24-sites` and PostgreSQL's
/// `pg22-sites`:
/// - `study_sites`: a study's sites (clinical centres), each with an id unique in the study, a
///   name, a country (ISO 3166 alpha-2) and the language its participants are addressed in, in
///   the order they were added (`position`);
/// - `member_sites`: the one site of a participant in a study (a person without a row belongs to
///   no site yet); it goes with the account (`ON DELETE CASCADE`) and cannot name a site the study
///   does not have;
/// - `staff_sites`: a team member whose role holds at one site only (as REDCap's data access
///   groups): they see and act on that site's participants alone. The row goes with the role
///   (its foreign key is the role's key), so a member who leaves the team and is appointed again
///   starts study-wide only when an owner says so.
enum SiteSchema {
    static let v24 = """
        CREATE TABLE study_sites (
            study_id TEXT NOT NULL REFERENCES studies(id) ON DELETE CASCADE,
            id TEXT NOT NULL,
            name TEXT NOT NULL,
            country TEXT NOT NULL,
            language TEXT NOT NULL,
            position INTEGER NOT NULL,
            PRIMARY KEY (study_id, id)
        );
        CREATE TABLE member_sites (
            study_id TEXT NOT NULL,
            user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            site_id TEXT NOT NULL,
            assigned_at REAL NOT NULL,
            PRIMARY KEY (study_id, user_id),
            FOREIGN KEY (study_id, site_id) REFERENCES study_sites(study_id, id) ON DELETE CASCADE
        );
        CREATE INDEX member_sites_site ON member_sites (study_id, site_id);
        CREATE TABLE staff_sites (
            study_id TEXT NOT NULL,
            staff_id INTEGER NOT NULL,
            site_id TEXT NOT NULL,
            PRIMARY KEY (study_id, staff_id),
            FOREIGN KEY (study_id, staff_id) REFERENCES study_roles(study_id, staff_id) ON DELETE CASCADE,
            FOREIGN KEY (study_id, site_id) REFERENCES study_sites(study_id, id) ON DELETE CASCADE
        );
        """

    static let pg22 = """
        CREATE TABLE study_sites (
            study_id text NOT NULL REFERENCES studies(id) ON DELETE CASCADE,
            id text NOT NULL,
            name text NOT NULL,
            country text NOT NULL,
            language text NOT NULL,
            position integer NOT NULL,
            PRIMARY KEY (study_id, id)
        );
        CREATE TABLE member_sites (
            study_id text NOT NULL,
            user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            site_id text NOT NULL,
            assigned_at double precision NOT NULL,
            PRIMARY KEY (study_id, user_id),
            FOREIGN KEY (study_id, site_id) REFERENCES study_sites(study_id, id) ON DELETE CASCADE
        );
        CREATE INDEX member_sites_site ON member_sites (study_id, site_id);
        CREATE TABLE staff_sites (
            study_id text NOT NULL,
            staff_id bigint NOT NULL,
            site_id text NOT NULL,
            PRIMARY KEY (study_id, staff_id),
            FOREIGN KEY (study_id, staff_id) REFERENCES study_roles(study_id, staff_id) ON DELETE CASCADE,
            FOREIGN KEY (study_id, site_id) REFERENCES study_sites(study_id, id) ON DELETE CASCADE
        );
        """
}
