import Foundation
import GRDB
import UNITIConfigurations
import UNITIProtocol

/// The study questionnaires a module presents, for Track Your Stress, Track Your Hearing and
/// Tinnitus Navigator alike (DESIGN, "Study questionnaires"): which there are, their state
/// today, the next one to answer, answering one through the questionnaire engine, and the
/// person's sheets for them from every device.
///
/// Where they come from: the joined studies' questionnaires as the server last sent them
/// (``StudyQuestionnaireStore``, kept by sync, used offline); while no server study is joined,
/// the studies bundled with the program that the default study names (`bundledStudies`), so a
/// newcomer sees the module work before any account.
///
/// The ordering rule (thesis FR10/FR11): a study's one-time questionnaires come first, its
/// repeating ones are offered only when every one-time questionnaire of the study that can be
/// answered now is answered; a one-time questionnaire answered on any device is done for good.
public struct StudyQuestionnaires: Sendable {
    let services: CoreServices
    /// The module whose questionnaires these are.
    public let module: ModuleID

    public init(services: CoreServices, module: ModuleID) {
        self.services = services
        self.module = module
    }

    static let bundledSinceKey = "studyQuestionnaires.bundledSince"

    // MARK: - Which questionnaires

    /// Every study questionnaire of the active studies, of every module, in offering order.
    public func allModules() throws -> [StudyQuestionnaire] {
        let joined = try services.studies.joinedStudies()
        if !joined.isEmpty {
            return try services.database.writer.read { db in try StudyQuestionnaireStore.load(studies: joined, in: db) }
        }
        return try bundled()
    }

    /// The questionnaires this module presents, in offering order.
    public func questionnaires() throws -> [StudyQuestionnaire] {
        try allModules().filter { $0.module == module }
    }

    /// The questionnaires of the bundled studies the default study names.
    func bundled() throws -> [StudyQuestionnaire] {
        let ids = StudyCatalog.defaultStudy.bundledStudies ?? []
        guard !ids.isEmpty else { return [] }
        let since = try bundledSince()
        var result: [StudyQuestionnaire] = []
        for id in ids {
            guard let data = BundledConfiguration.data("Studies/\(id).json"),
                  let study = try? JSONDecoder().decode(BundledStudy.self, from: data) else { continue }
            for entry in study.questionnaires {
                guard let module = ModuleID(rawValue: entry.module),
                      let definition = (try? QuestionnaireLoader.bundled(entry.id)).map(entry.applied(to:)) else { continue }
                result.append(StudyQuestionnaire(studyID: study.id, studyTitle: study.title, module: module,
                                                 isActive: entry.active, joinedAt: since, definition: definition,
                                                 isBundled: true))
            }
        }
        return result
    }

    /// The day the bundled studies count as joined: the first time they were asked for on this
    /// data directory (kept, so `startOnDay` means the same tomorrow).
    private func bundledSince() throws -> Date {
        if let text = try services.settings.string(Self.bundledSinceKey), let stamp = OffsetTimestamp(parsing: text) {
            return stamp.date
        }
        let now = services.clock.now
        // A read-only data directory still shows the questionnaires, counted from today.
        try? services.settings.set(Self.bundledSinceKey, to: OffsetTimestamp(now, in: services.clock.timeZone).text)
        return now
    }

    /// Asks the server for the current list now (one conditional request; a 304 when nothing
    /// changed), for a module that loads its questionnaire fresh each time it is answered
    /// (Track Your Hearing 5.2.1). Returns lines to show: a definition refused, or why the
    /// server could not be asked (then the questionnaires kept on the device are used). Nothing
    /// when nobody is logged in: the device's questionnaires are all there is.
    public func refresh() -> [String] {
        do {
            guard try services.sessions.current() != nil, try services.sessions.serverURL() != nil else { return [] }
            let client = try services.apiClient()
            let route = StudyQuestionnaireStore.route
            let etags = ETagStore(database: services.database)
            guard case .modified(let list, let etag) = try client.conditionalGet(
                route, etag: try etags.etag(for: route), as: AssignedQuestionnaireList.self) else { return [] }
            return try services.database.writer.write { db in
                try StudyQuestionnaireStore.apply(list, etag: etag, in: db)
            }.problems
        } catch let error as APIError {
            return [L("studyq.refresh.failed", ["reason": error.message])]
        } catch let error as UNITIError {
            return [L("studyq.refresh.failed", ["reason": error.message])]
        } catch {
            return [L("studyq.refresh.failed", ["reason": "\(error)"])]
        }
    }

    // MARK: - States

    /// This module's questionnaires with their states at `now` (the clock's now by default).
    public func statuses(at now: Date? = nil) throws -> [StudyQuestionnaireStatus] {
        let all = try allModules()
        let now = now ?? services.clock.now
        let timeZone = services.clock.timeZone
        let today = LocalDate(now, in: timeZone)
        let answers = try answerTimes(of: all.map(\.id))
        let drafts = try draftIDs()

        // Per study: the one-time questionnaires that can be answered now and are not yet.
        var pendingOneTime: [String: [String]] = [:]
        var states: [StudyQuestionnaireState] = []
        for questionnaire in all {
            let state = Self.baseState(of: questionnaire, today: today, timeZone: timeZone,
                                       answeredAt: answers[questionnaire.id] ?? [])
            states.append(state)
            if state == .toDo { pendingOneTime[questionnaire.studyID, default: []].append(questionnaire.id) }
        }
        var result: [StudyQuestionnaireStatus] = []
        for (questionnaire, state) in zip(all, states) where questionnaire.module == module {
            var state = state
            if questionnaire.isRepeating, state.isFillable, let pending = pendingOneTime[questionnaire.studyID] {
                state = .afterOneTime(pending: pending)
            }
            let times = answers[questionnaire.id] ?? []
            result.append(StudyQuestionnaireStatus(questionnaire: questionnaire, state: state, answers: times.count,
                                                   lastAnswered: times.max(),
                                                   hasDraft: drafts.contains(questionnaire.id)))
        }
        // One-time questionnaires first within each study, the studies in their order.
        let studyOrder = Dictionary(all.map(\.studyID).enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        return result.enumerated().sorted { lhs, rhs in
            let l = (studyOrder[lhs.element.questionnaire.studyID] ?? 0, lhs.element.questionnaire.isRepeating ? 1 : 0, lhs.offset)
            let r = (studyOrder[rhs.element.questionnaire.studyID] ?? 0, rhs.element.questionnaire.isRepeating ? 1 : 0, rhs.offset)
            return l < r
        }.map(\.element)
    }

    /// The state before the ordering rule: activation, schedule and answers.
    static func baseState(of questionnaire: StudyQuestionnaire, today: LocalDate, timeZone: TimeZone,
                          answeredAt: [Date]) -> StudyQuestionnaireState {
        guard questionnaire.isActive else { return .deactivated }
        let calendar = questionnaire.calendar(in: timeZone)
        if !questionnaire.isRepeating {
            if !answeredAt.isEmpty { return .done }
            switch calendar?.phase(on: today) {
            case .notStarted(let day): return .notStarted(day)
            case .ended(let day): return .ended(day)
            case .running, nil: return .toDo
            }
        }
        guard let calendar else { return .due(remaining: 1) }
        switch calendar.phase(on: today) {
        case .notStarted(let day): return .notStarted(day)
        case .ended(let day): return .ended(day)
        case .running: break
        }
        guard let period = calendar.activePeriod(containing: today) else {
            if let next = calendar.nextActiveDay(onOrAfter: today) { return .notDueUntil(next) }
            return .ended(calendar.lastDay ?? today)
        }
        let start = period.start.startInstant(in: timeZone)
        let end = period.end.startInstant(in: timeZone)
        let inPeriod = answeredAt.filter { $0 >= start && $0 < end }.count
        if inPeriod < calendar.amount { return .due(remaining: calendar.amount - inPeriod) }
        return .answered(next: calendar.nextActiveDay(onOrAfter: period.end))
    }

    /// The questionnaire `fill` offers without an id: the first one offered, in order.
    public func next() throws -> StudyQuestionnaireStatus? {
        try statuses().first { $0.state.isOffered }
    }

    /// The status of one of this module's questionnaires. Throws one line naming the ids there
    /// are when `id` is not one of them.
    public func status(of id: String) throws -> StudyQuestionnaireStatus {
        let all = try statuses()
        guard let status = all.first(where: { $0.id == id }) else {
            throw UNITIError(all.isEmpty ? L("studyq.error.none")
                             : L("studyq.error.unknown", ["id": id, "ids": all.map(\.id).joined(separator: ", ")]))
        }
        return status
    }

    /// Throws one line saying why `status` cannot be answered now (nothing when it can).
    public func requireFillable(_ status: StudyQuestionnaireStatus) throws {
        guard !status.state.isFillable else { return }
        let title = QuestionnaireText(localizer: CurrentLanguage.localizer).text(status.questionnaire.definition.title)
        var message = L("studyq.refused", ["title": title, "id": status.id, "state": status.state.text()])
        if case .afterOneTime(let pending) = status.state {
            let modules = Dictionary(try allModules().map { ($0.id, $0.module) }, uniquingKeysWith: { first, _ in first })
            let commands = pending.map { id in modules[id].map { fillCommand($0, id) } ?? id }
            message += " " + L("studyq.refused.answerFirst", ["commands": commands.joined(separator: ", ")])
        }
        if status.hasDraft { message += " " + L("studyq.refused.draftKept") }
        throw UNITIError(message)
    }

    /// The command that answers questionnaire `id` of `owner` in this program: every module that
    /// presents study questionnaires answers one with `fill ID`, typed after the module's id in
    /// the shell. A standalone program of another module cannot answer it: the message names
    /// the programs that can.
    func fillCommand(_ owner: ModuleID, _ id: String) -> String {
        switch services.program {
        case .integrated: return "`\(owner.rawValue) fill \(id)`"
        case .standalone where owner == module: return "`fill \(id)`"
        case .standalone:
            let program = ModuleCatalog.module(owner)?.programName ?? owner.rawValue
            return L("studyq.refused.otherProgram", ["command": "`\(owner.rawValue) fill \(id)`", "program": program])
        }
    }

    // MARK: - Answering

    /// Answers a questionnaire through the engine, as one page when its presentation says so
    /// (everything visible, required items marked, save refused while one is unanswered), and
    /// keeps the sheet: stored under this module
    /// and queued for upload in the transaction that drops the draft (a bundled study's sheets
    /// stay on the device: no server knows its questionnaires). One-time questionnaires keep
    /// their draft on every device (the person may continue on another).
    ///
    /// - Parameters:
    ///   - requiring: which questions must be answered before saving (``RequiredAnswers``).
    ///   - alsoStoring: runs in the transaction that stores the sheet, for a module that keeps
    ///     something with it (Tinnitus Navigator's completed-questionnaire record): both are
    ///     kept, or neither.
    @discardableResult
    public func fill(_ status: StudyQuestionnaireStatus, with engine: QuestionnaireEngine,
                     requiring: RequiredAnswers = .asDefined,
                     alsoStoring: ((QuestionnaireResult, Database) throws -> Void)? = nil) throws -> QuestionnaireResult {
        try requireFillable(status)
        let owner = module
        let clock = services.clock
        let uploads = !status.questionnaire.isBundled
        return try engine.answer(status.questionnaire.definition, owner: owner,
                                 syncsDraft: uploads && !status.questionnaire.isRepeating, asPage: true,
                                 requiring: requiring) { result, db in
            try AnswerSheetStore(database: services.database, clock: clock).save(result.sheet, owner: owner, in: db)
            if uploads { try SheetOutbox.enqueue(db, owner: owner, sheet: result.sheet, at: clock.now) }
            try alsoStoring?(result, db)
        }
    }

    // MARK: - Sheets

    /// A sheet of the person, with whether it has reached the server.
    public struct Sheet: Sendable {
        public var sheet: AnswerSheet
        public var upload: SheetUpload
    }

    /// The person's finished sheets of this module's questionnaires (or of one), newest first.
    public func sheets(questionnaireID: String? = nil) throws -> [Sheet] {
        var ids = try questionnaires().map(\.id)
        if let questionnaireID { ids = ids.filter { $0 == questionnaireID } }
        let owner = module.rawValue
        let rows = try services.database.writer.read { db -> [Row] in
            var sql = """
                SELECT s.sheet, s.erasedFromServerAt, o.state AS outboxState, o.lastError, o.lastErrorCode, o.attempts,
                       EXISTS (SELECT 1 FROM core_server_questionnaires q
                               WHERE q.id = s.questionnaireID AND q.version = s.questionnaireVersion) AS serverKnows
                FROM core_answer_sheets s
                LEFT JOIN core_outbox o ON o.clientID = 'sheet:' || s.id
                WHERE s.isPartial = 0 AND (s.owner = ?
                """
            var arguments: [any DatabaseValueConvertible] = [owner]
            if !ids.isEmpty {
                sql += " OR s.questionnaireID IN (\(ids.map { _ in "?" }.joined(separator: ",")))"
                arguments += ids
            }
            sql += ")"
            if let questionnaireID {
                sql += " AND s.questionnaireID = ?"
                arguments.append(questionnaireID)
            }
            return try Row.fetchAll(db, sql: sql + " ORDER BY s.storedAt DESC, s.rowid DESC",
                                    arguments: StatementArguments(arguments))
        }
        let loggedIn = try services.sessions.current() != nil
        return try rows.map { row in
            let sheet = try AnswerSheet.load(from: Data((row["sheet"] as String).utf8))
            return Sheet(sheet: sheet, upload: SheetUpload(row, loggedIn: loggedIn))
        }
    }

    /// One sheet by its id or a unique prefix of it (as `tys sheets` shows them).
    public func sheet(matching text: String) throws -> Sheet {
        let prefix = text.lowercased()
        let matches = try sheets().filter { $0.sheet.id.uuidString.lowercased().hasPrefix(prefix) }
        guard !prefix.isEmpty, let first = matches.first else {
            throw UNITIError(L("studyq.error.noSheet", ["id": text]))
        }
        guard matches.count == 1 else { throw UNITIError(L("studyq.error.ambiguousSheet", ["id": text, "count": "\(matches.count)"])) }
        return first
    }

    /// The definition a sheet answered: the version it names when known, else the current one.
    public func definition(answeredBy sheet: AnswerSheet) throws -> QuestionnaireDefinition? {
        if let exact = try ServerQuestionnaires(database: services.database).definition(id: sheet.questionnaireID,
                                                                                       version: sheet.questionnaireVersion) {
            return exact
        }
        if let bundled = try? QuestionnaireLoader.bundled(sheet.questionnaireID), bundled.version == sheet.questionnaireVersion {
            return bundled
        }
        return try questionnaires().first { $0.id == sheet.questionnaireID }?.definition
    }

    /// The numeric answers to item `label` of a questionnaire, from every device's finished
    /// sheets, as (finished at, value), oldest first, and when the earliest of those sheets was
    /// started: where a comparison over the same sheets begins, as the server places a sheet in
    /// a period by its start, not its end. Read in SQL, without decoding the sheets, so a chart
    /// over years of answers stays quick.
    public func values(of label: String, questionnaireID: String) throws -> (values: [(Date, Double)], firstStarted: Date?) {
        let path = "$.answers.\"\(label.replacingOccurrences(of: "\"", with: ""))\".value"
        return try services.database.writer.read { db in
            var result: [(Date, Double)] = []
            var firstStarted: Date?
            let rows = try Row.fetchCursor(db, sql: """
                SELECT endedAt, storedAt, json_extract(sheet, '$.startedAt') AS startedAt, json_extract(sheet, ?) AS value
                FROM core_answer_sheets
                WHERE questionnaireID = ? AND isPartial = 0 AND json_type(sheet, ?) IN ('integer', 'real')
                """, arguments: [path, questionnaireID, path])
            while let row = try rows.next() {
                let ended = (row["endedAt"] as String?).flatMap(OffsetTimestamp.init(parsing:))?.date
                result.append((ended ?? row["storedAt"], row["value"]))
                if let started = (row["startedAt"] as String?).flatMap(OffsetTimestamp.init(parsing:))?.date {
                    firstStarted = min(firstStarted ?? started, started)
                }
            }
            return (result.sorted { $0.0 < $1.0 }, firstStarted)
        }
    }

    /// When each questionnaire's finished sheets were finished, from every device.
    public func answerTimes(of ids: [String]) throws -> [String: [Date]] {
        guard !ids.isEmpty else { return [:] }
        return try services.database.writer.read { db in
            var result: [String: [Date]] = [:]
            let rows = try Row.fetchCursor(db, sql: """
                SELECT questionnaireID, endedAt, storedAt FROM core_answer_sheets
                WHERE isPartial = 0 AND questionnaireID IN (\(ids.map { _ in "?" }.joined(separator: ",")))
                """, arguments: StatementArguments(ids))
            while let row = try rows.next() {
                let ended = (row["endedAt"] as String?).flatMap(OffsetTimestamp.init(parsing:))?.date
                result[row["questionnaireID"], default: []].append(ended ?? row["storedAt"])
            }
            return result
        }
    }

    private func draftIDs() throws -> Set<String> {
        try services.database.writer.read { db in
            Set(try String.fetchAll(db, sql: "SELECT questionnaireID FROM core_questionnaire_drafts WHERE owner = ?",
                                    arguments: [module.rawValue]))
        }
    }
}

extension ModuleContext {
    /// The study questionnaires this module presents (see ``StudyQuestionnaires``).
    public var studyQuestionnaires: StudyQuestionnaires { StudyQuestionnaires(services: services, module: module.id) }
}
