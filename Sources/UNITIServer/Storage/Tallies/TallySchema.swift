/// Counts the console's study pages read instead of aggregating every sheet and prompt of a study
/// at each request (at 10,000 participants × 200 sheets × 200 prompts that took 3–6 s a page;
/// `Scripts/bench/console`), kept by triggers in the store itself, so every path that writes or
/// deletes a sheet or a prompt — uploads, erasure, a cascade from a deleted account — keeps them,
/// and none can forget to:
/// - `member_tallies`: per study and participant, their sheets and when the newest was answered
///   (its end, else its start); a row goes when its last sheet does;
/// - `prompt_tallies`: per questionnaire, participant and combination of event kinds
///   (``PromptKinds``), the prompts and when their events last arrived — the groups the
///   adherence aggregate counts (``ServerStore/adherence(studyId:from:to:_:)``); a prompt whose
///   kinds change moves from one group to the other; a row goes when its last prompt does;
/// - `day_tallies`: per UTC day, the sheets of a study (`counted = 'sheets'`, `kinds` 0) and the
///   prompts of a questionnaire by their due day and kinds (`'prompts'`): the overview's charts.
///   These rows are shared by every participant, so the triggers do not update them (two uploads
///   updating the same days in a different order would wait for each other or, on PostgreSQL,
///   deadlock): they append a change (+1, −1) to `day_tally_changes`, which
///   ``ServerStore/foldDayTallies()`` folds into `day_tallies` before they are read and every ten
///   minutes (``AlertMonitor``). Neither holds a user id: erasing a person leaves study-wide
///   counts only.
///
/// A stored sheet is never changed (uploads are `ON CONFLICT DO NOTHING`), so sheets need triggers
/// on insert and delete only; a prompt's row changes its kinds and arrival time
/// (``ServerStore/storePromptEvents(userId:events:receivedAt:)``), never its questionnaire or due
/// time. When a sheet that was a participant's newest goes, the newest is read again from their
/// sheets (through `answer_sheets_user`). The migration fills the tables from the rows already
/// stored.
enum TallySchema {
    /// SQLite `v21-tallies`.
    static let v21 = """
        CREATE TABLE member_tallies (
            study_id TEXT NOT NULL,
            user_id INTEGER NOT NULL,
            sheets INTEGER NOT NULL,
            last_answer_at REAL NOT NULL,
            PRIMARY KEY (study_id, user_id)
        );
        CREATE TABLE prompt_tallies (
            questionnaire_id TEXT NOT NULL,
            user_id INTEGER NOT NULL,
            kinds INTEGER NOT NULL,
            prompts INTEGER NOT NULL,
            last_received_at REAL NOT NULL,
            PRIMARY KEY (questionnaire_id, user_id, kinds)
        );
        CREATE TABLE day_tallies (
            counted TEXT NOT NULL,
            subject TEXT NOT NULL,
            day INTEGER NOT NULL,
            kinds INTEGER NOT NULL,
            n INTEGER NOT NULL,
            PRIMARY KEY (counted, subject, day, kinds)
        );
        CREATE TABLE day_tally_changes (
            counted TEXT NOT NULL,
            subject TEXT NOT NULL,
            day INTEGER NOT NULL,
            kinds INTEGER NOT NULL,
            n INTEGER NOT NULL
        );

        CREATE TRIGGER answer_sheets_tally_insert AFTER INSERT ON answer_sheets BEGIN
            INSERT INTO member_tallies (study_id, user_id, sheets, last_answer_at)
            VALUES (NEW.study_id, NEW.user_id, 1, COALESCE(NEW.ended_at, NEW.started_at))
            ON CONFLICT (study_id, user_id) DO UPDATE SET sheets = sheets + 1, last_answer_at = MAX(last_answer_at, excluded.last_answer_at);
            INSERT INTO day_tally_changes VALUES ('sheets', NEW.study_id, CAST(NEW.started_at / 86400 AS INTEGER), 0, 1);
        END;
        CREATE TRIGGER answer_sheets_tally_delete AFTER DELETE ON answer_sheets BEGIN
            UPDATE member_tallies SET sheets = sheets - 1,
                last_answer_at = CASE WHEN COALESCE(OLD.ended_at, OLD.started_at) < last_answer_at THEN last_answer_at
                    ELSE COALESCE((SELECT MAX(COALESCE(s.ended_at, s.started_at)) FROM answer_sheets s
                                   WHERE s.user_id = OLD.user_id AND s.study_id = OLD.study_id), 0) END
            WHERE study_id = OLD.study_id AND user_id = OLD.user_id;
            DELETE FROM member_tallies WHERE study_id = OLD.study_id AND user_id = OLD.user_id AND sheets <= 0;
            INSERT INTO day_tally_changes VALUES ('sheets', OLD.study_id, CAST(OLD.started_at / 86400 AS INTEGER), 0, -1);
        END;

        CREATE TRIGGER prompts_tally_insert AFTER INSERT ON prompts WHEN NEW.questionnaire_id IS NOT NULL BEGIN
            INSERT INTO prompt_tallies (questionnaire_id, user_id, kinds, prompts, last_received_at)
            VALUES (NEW.questionnaire_id, NEW.user_id, NEW.kinds, 1, NEW.received_at)
            ON CONFLICT (questionnaire_id, user_id, kinds) DO UPDATE SET prompts = prompts + 1,
                last_received_at = MAX(last_received_at, excluded.last_received_at);
            INSERT INTO day_tally_changes VALUES ('prompts', NEW.questionnaire_id, CAST(NEW.due_at / 86400 AS INTEGER), NEW.kinds, 1);
        END;
        CREATE TRIGGER prompts_tally_delete AFTER DELETE ON prompts WHEN OLD.questionnaire_id IS NOT NULL BEGIN
            UPDATE prompt_tallies SET prompts = prompts - 1
            WHERE questionnaire_id = OLD.questionnaire_id AND user_id = OLD.user_id AND kinds = OLD.kinds;
            DELETE FROM prompt_tallies
            WHERE questionnaire_id = OLD.questionnaire_id AND user_id = OLD.user_id AND kinds = OLD.kinds AND prompts <= 0;
            INSERT INTO day_tally_changes VALUES ('prompts', OLD.questionnaire_id, CAST(OLD.due_at / 86400 AS INTEGER), OLD.kinds, -1);
        END;
        CREATE TRIGGER prompts_tally_move AFTER UPDATE OF kinds ON prompts
        WHEN NEW.questionnaire_id IS NOT NULL AND OLD.kinds <> NEW.kinds BEGIN
            UPDATE prompt_tallies SET prompts = prompts - 1
            WHERE questionnaire_id = OLD.questionnaire_id AND user_id = OLD.user_id AND kinds = OLD.kinds;
            DELETE FROM prompt_tallies
            WHERE questionnaire_id = OLD.questionnaire_id AND user_id = OLD.user_id AND kinds = OLD.kinds AND prompts <= 0;
            INSERT INTO prompt_tallies (questionnaire_id, user_id, kinds, prompts, last_received_at)
            VALUES (NEW.questionnaire_id, NEW.user_id, NEW.kinds, 1, NEW.received_at)
            ON CONFLICT (questionnaire_id, user_id, kinds) DO UPDATE SET prompts = prompts + 1,
                last_received_at = MAX(last_received_at, excluded.last_received_at);
            INSERT INTO day_tally_changes VALUES ('prompts', OLD.questionnaire_id, CAST(OLD.due_at / 86400 AS INTEGER), OLD.kinds, -1),
                ('prompts', NEW.questionnaire_id, CAST(NEW.due_at / 86400 AS INTEGER), NEW.kinds, 1);
        END;
        CREATE TRIGGER prompts_tally_arrival AFTER UPDATE OF received_at ON prompts
        WHEN NEW.questionnaire_id IS NOT NULL AND OLD.kinds = NEW.kinds BEGIN
            UPDATE prompt_tallies SET last_received_at = MAX(last_received_at, NEW.received_at)
            WHERE questionnaire_id = NEW.questionnaire_id AND user_id = NEW.user_id AND kinds = NEW.kinds;
        END;

        INSERT INTO member_tallies (study_id, user_id, sheets, last_answer_at)
        SELECT study_id, user_id, COUNT(*), MAX(COALESCE(ended_at, started_at)) FROM answer_sheets GROUP BY study_id, user_id;
        INSERT INTO prompt_tallies (questionnaire_id, user_id, kinds, prompts, last_received_at)
        SELECT questionnaire_id, user_id, kinds, COUNT(*), MAX(received_at) FROM prompts WHERE questionnaire_id IS NOT NULL
        GROUP BY questionnaire_id, user_id, kinds;
        INSERT INTO day_tallies (counted, subject, day, kinds, n)
        SELECT 'sheets', study_id, CAST(started_at / 86400 AS INTEGER), 0, COUNT(*) FROM answer_sheets GROUP BY 2, 3;
        INSERT INTO day_tallies (counted, subject, day, kinds, n)
        SELECT 'prompts', questionnaire_id, CAST(due_at / 86400 AS INTEGER), kinds, COUNT(*) FROM prompts
        WHERE questionnaire_id IS NOT NULL GROUP BY 2, 3, 4;
        """

    /// PostgreSQL `pg19-tallies`: the same tables, the triggers as two PL/pgSQL functions (a
    /// trigger of `AFTER … FOR EACH ROW` sees the whole statement's rows, so the newest sheet read
    /// again after a delete is one that stays).
    static let pg19 = """
        CREATE TABLE member_tallies (
            study_id text NOT NULL,
            user_id bigint NOT NULL,
            sheets bigint NOT NULL,
            last_answer_at double precision NOT NULL,
            PRIMARY KEY (study_id, user_id)
        );
        CREATE TABLE prompt_tallies (
            questionnaire_id text NOT NULL,
            user_id bigint NOT NULL,
            kinds integer NOT NULL,
            prompts bigint NOT NULL,
            last_received_at double precision NOT NULL,
            PRIMARY KEY (questionnaire_id, user_id, kinds)
        );
        CREATE TABLE day_tallies (
            counted text NOT NULL,
            subject text NOT NULL,
            day bigint NOT NULL,
            kinds integer NOT NULL,
            n bigint NOT NULL,
            PRIMARY KEY (counted, subject, day, kinds)
        );
        CREATE TABLE day_tally_changes (
            counted text NOT NULL,
            subject text NOT NULL,
            day bigint NOT NULL,
            kinds integer NOT NULL,
            n integer NOT NULL
        );

        CREATE FUNCTION tally_sheet() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'INSERT' THEN
                INSERT INTO member_tallies (study_id, user_id, sheets, last_answer_at)
                VALUES (NEW.study_id, NEW.user_id, 1, COALESCE(NEW.ended_at, NEW.started_at))
                ON CONFLICT (study_id, user_id) DO UPDATE SET sheets = member_tallies.sheets + 1,
                    last_answer_at = GREATEST(member_tallies.last_answer_at, excluded.last_answer_at);
                INSERT INTO day_tally_changes VALUES ('sheets', NEW.study_id, floor(NEW.started_at / 86400)::bigint, 0, 1);
            ELSE
                UPDATE member_tallies SET sheets = sheets - 1,
                    last_answer_at = CASE WHEN COALESCE(OLD.ended_at, OLD.started_at) < last_answer_at THEN last_answer_at
                        ELSE COALESCE((SELECT MAX(COALESCE(s.ended_at, s.started_at)) FROM answer_sheets s
                                       WHERE s.user_id = OLD.user_id AND s.study_id = OLD.study_id), 0) END
                WHERE study_id = OLD.study_id AND user_id = OLD.user_id;
                DELETE FROM member_tallies WHERE study_id = OLD.study_id AND user_id = OLD.user_id AND sheets <= 0;
                INSERT INTO day_tally_changes VALUES ('sheets', OLD.study_id, floor(OLD.started_at / 86400)::bigint, 0, -1);
            END IF;
            RETURN NULL;
        END
        $$;
        CREATE TRIGGER answer_sheets_tally AFTER INSERT OR DELETE ON answer_sheets FOR EACH ROW EXECUTE FUNCTION tally_sheet();

        CREATE FUNCTION tally_prompt() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP <> 'INSERT' AND OLD.questionnaire_id IS NOT NULL THEN
                IF TG_OP = 'DELETE' OR OLD.kinds <> NEW.kinds THEN
                    UPDATE prompt_tallies SET prompts = prompts - 1
                    WHERE questionnaire_id = OLD.questionnaire_id AND user_id = OLD.user_id AND kinds = OLD.kinds;
                    DELETE FROM prompt_tallies
                    WHERE questionnaire_id = OLD.questionnaire_id AND user_id = OLD.user_id AND kinds = OLD.kinds AND prompts <= 0;
                    INSERT INTO day_tally_changes VALUES ('prompts', OLD.questionnaire_id, floor(OLD.due_at / 86400)::bigint, OLD.kinds, -1);
                END IF;
            END IF;
            IF TG_OP <> 'DELETE' AND NEW.questionnaire_id IS NOT NULL THEN
                IF TG_OP = 'INSERT' OR OLD.kinds <> NEW.kinds THEN
                    INSERT INTO prompt_tallies (questionnaire_id, user_id, kinds, prompts, last_received_at)
                    VALUES (NEW.questionnaire_id, NEW.user_id, NEW.kinds, 1, NEW.received_at)
                    ON CONFLICT (questionnaire_id, user_id, kinds) DO UPDATE SET prompts = prompt_tallies.prompts + 1,
                        last_received_at = GREATEST(prompt_tallies.last_received_at, excluded.last_received_at);
                    INSERT INTO day_tally_changes VALUES ('prompts', NEW.questionnaire_id, floor(NEW.due_at / 86400)::bigint, NEW.kinds, 1);
                ELSE
                    UPDATE prompt_tallies SET last_received_at = GREATEST(last_received_at, NEW.received_at)
                    WHERE questionnaire_id = NEW.questionnaire_id AND user_id = NEW.user_id AND kinds = NEW.kinds;
                END IF;
            END IF;
            RETURN NULL;
        END
        $$;
        CREATE TRIGGER prompts_tally AFTER INSERT OR UPDATE OR DELETE ON prompts FOR EACH ROW EXECUTE FUNCTION tally_prompt();

        INSERT INTO member_tallies (study_id, user_id, sheets, last_answer_at)
        SELECT study_id, user_id, COUNT(*), MAX(COALESCE(ended_at, started_at)) FROM answer_sheets GROUP BY study_id, user_id;
        INSERT INTO prompt_tallies (questionnaire_id, user_id, kinds, prompts, last_received_at)
        SELECT questionnaire_id, user_id, kinds, COUNT(*), MAX(received_at) FROM prompts WHERE questionnaire_id IS NOT NULL
        GROUP BY questionnaire_id, user_id, kinds;
        INSERT INTO day_tallies (counted, subject, day, kinds, n)
        SELECT 'sheets', study_id, floor(started_at / 86400)::bigint, 0, COUNT(*) FROM answer_sheets GROUP BY 2, 3;
        INSERT INTO day_tallies (counted, subject, day, kinds, n)
        SELECT 'prompts', questionnaire_id, floor(due_at / 86400)::bigint, kinds, COUNT(*) FROM prompts
        WHERE questionnaire_id IS NOT NULL GROUP BY 2, 3, 4
        """
}
