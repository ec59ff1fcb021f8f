import ArgumentParser
import Foundation
import UNITICore
import UNITIProtocol

/// `studies [--all] [--json]`: the studies you take part in; with `--all`, every study the server
/// lists, each with its access (joining a password study asks for the password, a by-request
/// one sends a request: Track Your Stress thesis 7.2.3).
struct StudiesCommand: HostCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "studies", abstract: L("host.studies.abstract"))
    }

    @Flag(help: ArgumentHelp(L("host.studies.all"))) var all = false
    @OptionGroup var output: JSONOutput

    struct Row: Encodable {
        let id: String
        let title: String
        let modules: [String]
        let membership: String
        let access: String?
        /// Only where the server shows it to this person (a password or by-request study's to
        /// its members and applicants).
        var description: String? = nil
        var startsAt: String? = nil
        var endsAt: String? = nil
    }

    func run(in shell: Shell) throws {
        let language = CurrentLanguage.value.rawValue
        let rows: [Row]
        if all {
            let list: StudyList = try shell.api { try $0.send("GET", "studies") }
            rows = list.studies.map {
                Row(id: $0.id, title: $0.title.text(in: language, fallback: $0.fallbackLanguage), modules: $0.modules,
                    membership: $0.membership.rawValue, access: $0.access.rawValue,
                    description: $0.description?.text(in: language, fallback: $0.fallbackLanguage), startsAt: $0.startsAt, endsAt: $0.endsAt)
            }
        } else {
            rows = try shell.services.studies.activeStudies().map {
                Row(id: $0.id, title: $0.title.text(in: language, fallback: $0.fallbackLanguage), modules: $0.modules, membership: "member", access: nil)
            }
        }
        if output.isRequested(in: shell.services) {
            try shell.console.json(rows)
            return
        }
        let l = shell.localizer
        guard !rows.isEmpty else {
            shell.console.line(l("host.studies.noneOnServer"))
            return
        }
        shell.printTable(rows.map { row in
            var detail = "\(row.title) [\(row.modules.joined(separator: ", "))]"
            if all { detail += " " + l("host.studies.membership.\(row.membership)") + ", " + l("host.studies.access.\(row.access ?? "public")") }
            return (row.id, detail)
        })
    }
}

/// `study info|join|leave|consent ID`.
struct StudyCommand: HostCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "study", abstract: L("host.study.abstract"),
                             subcommands: [Info.self, Join.self, Leave.self, Consent.self])
    }

    func run(in shell: Shell) throws {}

    struct Info: HostCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "info", abstract: L("host.study.info.abstract"))
        }

        @Argument(help: ArgumentHelp(L("host.study.id"))) var id: String
        @OptionGroup var output: JSONOutput

        func run(in shell: Shell) throws {
            let study: StudyInfo = try shell.api { try $0.send("GET", "studies/\(id)") }
            if output.isRequested(in: shell.services) {
                try shell.console.json(study)
                return
            }
            StudyCommand.describe(study, shell: shell)
        }
    }

    struct Join: HostCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "join", abstract: L("host.study.join.abstract"))
        }

        @Argument(help: ArgumentHelp(L("host.study.id"))) var id: String
        @Option(help: ArgumentHelp(L("host.study.join.site"))) var site: String?

        func run(in shell: Shell) throws {
            let study: StudyInfo = try shell.api { try $0.send("GET", "studies/\(id)") }
            StudyCommand.describe(study, shell: shell)
            let language = CurrentLanguage.value.rawValue
            let title = "\(study.title.text(in: language, fallback: study.fallbackLanguage)) (\(id))"
            // A study that screens asks its questions first: nobody reads a consent for a study
            // they cannot take part in. Nothing of the answers is kept on this device.
            let screening = try study.screening.map { try Self.screen($0, title: title, fallback: study.fallbackLanguage, shell: shell) }
            if study.consent != nil, !(try shell.confirm("host.study.join.consent")) {
                shell.console.line(shell.localizer("host.study.join.declined"))
                return
            }
            // The version read and agreed to: the server records it with the time.
            var request = JoinStudyRequest(consentVersion: study.consentVersion, site: site, screening: screening)
            if study.access == .password {
                request.password = try shell.askSecret("host.study.join.password")
            }
            let answer: MembershipResponse = try shell.api { try $0.send("POST", "studies/\(id)/join", body: request) }
            if let outcome = answer.screening, !outcome.eligible {
                shell.console.line(shell.localizer("host.study.join.ineligible", ["study": title]))
                if let message = outcome.message { shell.console.line(MarkdownText.plainText(message.text(in: language, fallback: study.fallbackLanguage))) }
                return
            }
            shell.console.line(shell.localizer("host.study.joined.\(answer.membership.rawValue)", ["study": title]))
            shell.syncAfterSuccess()
        }

        /// Asks the study's screening questions, every one required, and whether the answers may
        /// be kept should the person not be eligible (when the study asks that).
        static func screen(_ screening: StudyScreeningInfo, title: String, fallback: String?, shell: Shell) throws -> ScreeningAnswers {
            shell.console.line(shell.localizer("host.study.join.screening", ["study": title]))
            let result = try QuestionnaireEngine(services: shell.services)
                .answer(screening.questionnaire, owner: .shell, keepsDraft: false, requiring: .everyQuestion)
            var sheet = result.sheet
            // The server gives the sheet to the module presenting the questionnaire in the study.
            sheet.owner = nil
            var keep = false
            if let question = screening.keepAnswersQuestion {
                let text = MarkdownText.plainText(question.text(in: CurrentLanguage.value.rawValue, fallback: fallback))
                keep = Confirmation.isYes(try shell.answer(to: text + " " + shell.localizer("host.study.join.yesNo")))
            }
            return ScreeningAnswers(sheet: sheet, keepIfIneligible: keep)
        }
    }

    struct Leave: HostCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "leave", abstract: L("host.study.leave.abstract"))
        }

        @Argument(help: ArgumentHelp(L("host.study.id"))) var id: String
        @Flag(help: ArgumentHelp(L("host.study.leave.answers"))) var answers: AnswersOnLeaving?

        /// What becomes of the answers given so far; asked when not given.
        enum AnswersOnLeaving: String, EnumerableFlag {
            case keepAnswers, deleteAnswers
        }

        func run(in shell: Shell) throws {
            // A study that does not let participants leave is refused by the server in one line;
            // nobody is asked what should become of answers first.
            let study: StudyInfo = try shell.api { try $0.send("GET", "studies/\(id)") }
            var delete = false
            if study.participantsMayLeave {
                guard try shell.confirm("host.study.leave.confirm", ["study": id]) else { return }
                delete = try answers.map { $0 == .deleteAnswers } ?? shell.confirm("host.study.leave.deleteQuestion", ["study": id])
            }
            let _: MembershipResponse = try shell.api {
                try $0.send("POST", "studies/\(id)/leave", body: LeaveStudyRequest(deleteAnswers: delete))
            }
            let dropped = try shell.services.studies.recordLeft(id, erasingAnswersAt: delete ? shell.services.clock.now : nil)
            let title = "\(study.title.text(in: CurrentLanguage.value.rawValue, fallback: study.fallbackLanguage)) (\(id))"
            shell.console.line(shell.localizer(delete ? "host.study.left.deleted" : "host.study.left", ["study": title]))
            if dropped > 0 { shell.console.line(shell.localizer("host.study.left.unsentDropped", ["count": "\(dropped)"])) }
            shell.syncAfterSuccess()
        }
    }

    /// `study consent ID [--agree] [--json]`: the study's current consent and what the person
    /// agreed to, each version with its text and time; agreeing to a new version (asked, or
    /// `--agree`) lets the answers that waited for it go to the server at once.
    struct Consent: HostCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "consent", abstract: L("host.study.consent.abstract"))
        }

        @Argument(help: ArgumentHelp(L("host.study.id"))) var id: String
        @Flag(help: ArgumentHelp(L("host.study.consent.agreeFlag"))) var agree = false
        @OptionGroup var output: JSONOutput

        func run(in shell: Shell) throws {
            // The bundled default study needs no server: its consent ships with the program.
            if id == StudyCatalog.defaultStudy.id, let consent = StudyCatalog.defaultStudy.consent {
                shell.console.line(MarkdownText.plainText(consent.text(in: CurrentLanguage.value.rawValue)))
                return
            }
            let study: StudyInfo = try shell.api { try $0.send("GET", "studies/\(id)") }
            var status: ConsentStatus = try shell.api { try $0.send("GET", "studies/\(id)/consent") }
            let l = shell.localizer
            if study.membership == .member, study.needsConsent, let version = study.consentVersion, !output.isRequested(in: shell.services) {
                shell.console.line(l("host.study.consent.new", ["study": id, "version": "\(version)"]))
                shell.console.line(MarkdownText.plainText(study.consent?.text(in: CurrentLanguage.value.rawValue, fallback: study.fallbackLanguage) ?? ""))
                guard try agree || shell.confirm("host.study.join.consent") else {
                    shell.console.line(l("host.study.consent.notAgreed", ["study": id]))
                    return
                }
                status = try shell.api { try $0.send("POST", "studies/\(id)/consent", body: ConsentRequest(version: version)) }
                shell.console.line(l("host.study.consent.agreed", ["study": id, "version": "\(version)"]))
                shell.syncAfterSuccess()
                return
            }
            if output.isRequested(in: shell.services) {
                try shell.console.json(status)
                return
            }
            guard !status.agreements.isEmpty else {
                shell.console.line(l(study.consentVersion == nil ? "host.study.consent.none" : "host.study.consent.notYet", ["study": id]))
                return
            }
            for agreement in status.agreements {
                let time = OffsetTimestamp(parsing: agreement.agreedAt).map { OffsetTimestamp($0.date, in: shell.services.clock.timeZone).minuteText }
                shell.console.line(l("host.study.consent.agreedOn", ["version": "\(agreement.version)", "time": time ?? agreement.agreedAt]))
                shell.console.line(MarkdownText.plainText(agreement.text.text(in: CurrentLanguage.value.rawValue, fallback: study.fallbackLanguage)))
            }
        }
    }

    static func describe(_ study: StudyInfo, shell: Shell) {
        let l = shell.localizer
        let language = CurrentLanguage.value.rawValue
        shell.console.line("\(study.title.text(in: language, fallback: study.fallbackLanguage)) (\(study.id))")
        if let description = study.description { shell.console.line(description.text(in: language, fallback: study.fallbackLanguage)) }
        if let notice = study.notice { shell.console.line(notice.text(in: language, fallback: study.fallbackLanguage)) }
        /// The server's time in this device's zone, to the minute.
        func time(_ text: String?) -> String {
            guard let text, let time = OffsetTimestamp(parsing: text) else { return l("host.study.noTime") }
            return OffsetTimestamp(time.date, in: shell.services.clock.timeZone).minuteText
        }
        shell.printTable([
            (l("host.study.modules"), study.modules.joined(separator: ", ")),
            (l("host.study.access"), l("host.studies.access.\(study.access.rawValue)")),
            (l("host.study.running"), study.running ? l("host.yes") : l("host.no")),
            (l("host.study.starts"), time(study.startsAt)),
            (l("host.study.ends"), time(study.endsAt)),
            (l("host.study.mayLeave"), study.participantsMayLeave ? l("host.yes") : l("host.no")),
            (l("host.study.membership"), l("host.studies.membership.\(study.membership.rawValue)")),
        ])
        if let visits = study.visits, !visits.isEmpty {
            // The participant's visits: each window in this device's zone, to the day, and where it stands now.
            shell.console.line(l("host.study.visits"))
            let now = shell.services.clock.now
            shell.printTable(visits.map { visit in
                let window = [visit.opens, visit.closes].compactMap { OffsetTimestamp(parsing: $0)?.date }
                let days = window.count == 2
                    ? "\(OffsetTimestamp(window[0], in: shell.services.clock.timeZone).text.prefix(10)) – \(OffsetTimestamp(window[1].addingTimeInterval(-60), in: shell.services.clock.timeZone).text.prefix(10))"
                    : "?"
                let state = visit.state(at: now).map { l("host.study.visit.\($0.rawValue)") } ?? "?"
                return (visit.title.text(in: language, fallback: study.fallbackLanguage), "\(days): \(state) (\(visit.questionnaires.joined(separator: ", ")))")
            })
        }
        if let consent = study.consent {
            shell.console.line(l("host.study.consent"))
            shell.console.line(MarkdownText.plainText(consent.text(in: language, fallback: study.fallbackLanguage)))
        }
    }
}

/// `sync [--status] [--json]`: upload what is waiting and fetch what changed.
struct SyncCommand: HostCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "sync", abstract: L("host.sync.abstract"))
    }

    @Flag(help: ArgumentHelp(L("host.sync.statusFlag"))) var status = false
    @OptionGroup var output: JSONOutput

    func run(in shell: Shell) throws {
        if status {
            let report = try SyncEngine.status(of: shell.services)
            if output.isRequested(in: shell.services) {
                try shell.console.json(report)
                return
            }
            let l = shell.localizer
            shell.printTable([
                (l("host.sync.pending"), "\(report.pending)"),
                (l("host.sync.waiting"), "\(report.waiting.count)"),
                (l("host.sync.rejected"), "\(report.rejected.count)"),
                (l("host.sync.lastSuccess"), report.lastSuccess ?? l("host.sync.never")),
                (l("host.sync.lastError"), report.lastError ?? l("host.profile.none")),
                (l("host.sync.lastAttempt"), report.lastAttempt ?? l("host.sync.never")),
                (l("host.sync.nextAttempt"), report.nextAttempt.map { l("host.sync.nextAttempt.at", ["time": $0]) }
                    ?? l("host.sync.nextAttempt.nothing")),
            ])
            // One line per distinct reason: a thousand sheets waiting for one study are one line.
            for (state, entries) in [("waiting", report.waiting), ("rejected", report.rejected)] {
                var counts: [String: Int] = [:]
                var order: [String] = []
                for entry in entries {
                    let line = "\(entry.module) \(entry.kind)" + (entry.questionnaire.map { " (\($0))" } ?? "") + ": \(entry.reason)"
                    if counts[line] == nil { order.append(line) }
                    counts[line, default: 0] += 1
                }
                for line in order {
                    shell.console.line("  " + l("host.sync.held.\(state)", ["count": "\(counts[line]!)", "entry": line]))
                }
            }
            return
        }
        try shell.syncNow(force: true, quiet: false)
    }
}

/// `config set server URL`, `config show`.
struct ConfigCommand: HostCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "config", abstract: L("host.config.abstract"), subcommands: [Set.self, Show.self])
    }

    func run(in shell: Shell) throws {}

    struct Set: HostCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "set", abstract: L("host.config.set.abstract"))
        }

        /// The settings `config set` knows.
        enum Key: String, CaseIterable, ExpressibleByArgument {
            case server
        }

        @Argument(help: ArgumentHelp(L("host.config.key"))) var key: Key
        @Argument(help: ArgumentHelp(L("host.config.value"))) var value: String

        func run(in shell: Shell) throws {
            switch key {
            case .server:
                try shell.sessions.setServer(value)
                shell.console.line(shell.localizer("host.config.serverSet", ["url": value]))
            }
        }
    }

    struct Show: HostCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "show", abstract: L("host.config.show.abstract"))
        }

        func run(in shell: Shell) throws {
            let server = try shell.sessions.serverURL()?.absoluteString ?? shell.localizer("host.status.noServer")
            let user = try shell.sessions.current()?.username ?? shell.localizer("host.config.notLoggedIn")
            shell.printTable([("server", server), ("user", user)])
        }
    }
}
