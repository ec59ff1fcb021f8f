import ArgumentParser
import Foundation
import UNITICore
import UNITIProtocol

extension Shell {
    /// The account service over the configured server.
    var accounts: AccountService {
        AccountService(services: services, sessions: sessions, transport: services.transport)
    }

    /// Asks a question; `-` or an empty answer keeps `current` when one is given.
    func ask(_ key: String, _ arguments: [String: String] = [:]) throws -> String {
        try answer(to: localizer(key, arguments))
    }

    /// The answer to a question already in words, trimmed.
    func answer(to question: String) throws -> String {
        try services.input.requireLine(prompt: question + " ").trimmingCharacters(in: .whitespaces)
    }

    func askSecret(_ key: String) throws -> String {
        guard let secret = try services.input.readSecret(prompt: localizer(key) + " ") else {
            throw PromptCancelled(.endOfInput)
        }
        return secret
    }

    /// Asks for a new password twice and checks it.
    func askNewPassword() throws -> String {
        let password = try askSecret("host.account.newPassword")
        let repeated = try askSecret("host.account.repeatPassword")
        try AccountService.checkPassword(password, repeated: repeated)
        return password
    }

    func confirm(_ key: String, _ arguments: [String: String] = [:]) throws -> Bool {
        Confirmation.isYes(try ask(key, arguments))
    }

    /// Asks a yes/no question about a count (a plural key, see ``Localizer/callAsFunction(_:count:_:)``).
    func confirm(_ key: String, count: Int, _ arguments: [String: String] = [:]) throws -> Bool {
        Confirmation.isYes(try answer(to: localizer(key, count: count, arguments)))
    }
}

/// `register`: create an account on the study server (username, e-mail twice, password twice).
struct RegisterCommand: HostCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "register", abstract: L("host.register.abstract"))
    }

    func run(in shell: Shell) throws {
        let username = try shell.ask("host.account.username")
        try AccountService.checkUsername(username)
        let email = try shell.ask("host.account.email")
        try AccountService.checkEmail(email)
        guard try shell.ask("host.account.emailAgain") == email else { throw UNITIError(L("host.account.emailsDiffer")) }
        let password = try shell.askNewPassword()
        try shell.accounts.register(username: username, email: email, password: password)
        shell.console.line(shell.localizer("host.register.done", ["email": email]))
    }
}

/// `activate TOKEN`: activate the account with the token from the e-mail.
struct ActivateCommand: HostCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "activate", abstract: L("host.activate.abstract"))
    }

    @Argument(help: ArgumentHelp(L("host.activate.token"))) var token: String

    func run(in shell: Shell) throws {
        try shell.accounts.activate(token: token)
        shell.console.line(shell.localizer("host.activate.done"))
    }
}

/// `login [NAME] [--reactivate]`: log in by username or e-mail; the studies, modules and
/// questionnaires follow. A deactivated account is offered back: one yes/no question at a
/// terminal; a script says `--reactivate` up front (it is told so in one line otherwise).
struct LoginCommand: HostCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "login", abstract: L("host.login.abstract"))
    }

    @Argument(help: ArgumentHelp(L("host.login.name"))) var name: String?
    @Flag(help: ArgumentHelp(L("host.login.reactivate"))) var reactivate = false

    func run(in shell: Shell) throws {
        let login = try name ?? shell.ask("host.account.login")
        let password = try shell.askSecret("host.account.password")
        var reactivated = false
        let session = try shell.accounts.login(login, password: password, reactivate: {
            if !reactivate {
                guard shell.services.input.isInteractive else {
                    throw UNITIError(shell.localizer("host.login.deactivatedScript", ["login": login]))
                }
                guard try shell.confirm("host.login.reactivateQuestion") else { return false }
            }
            reactivated = true
            return true
        }, attachGuestData: { entries, username in
            try shell.confirm("host.login.attachGuest", count: entries, ["username": username])
        })
        if reactivated { shell.console.line(shell.localizer("host.login.reactivated", ["username": session.username])) }
        shell.console.line(shell.localizer("host.login.done", ["username": session.username]))
        shell.syncAfterSuccess()
        BaselineHostCommand.remindIfOpen(shell)
    }
}

/// `logout [--yes]`: end the session; data stays and is uploaded after the next login. A person
/// at a terminal is asked first and told how many changes have not reached the server
/// (TinnitusNavigator 4.1.6: logging out is a step one should not take by mistake); a script,
/// whose lines were written beforehand, and `--yes` log out at once.
struct LogoutCommand: HostCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "logout", abstract: L("host.logout.abstract"))
    }

    @Flag(name: [.customShort("y"), .long], help: ArgumentHelp(L("host.logout.yes"))) var yes = false

    func run(in shell: Shell) throws {
        let pending = try Outbox(database: shell.services.database).undeliveredCount()
        if !yes, shell.services.input.isInteractive, try shell.sessions.current() != nil,
           !(try shell.confirm(pending > 0 ? "host.logout.confirm.pending" : "host.logout.confirm", ["count": "\(pending)"])) {
            shell.console.line(shell.localizer("host.logout.kept"))
            return
        }
        try shell.accounts.logout()
        shell.console.line(pending > 0 ? shell.localizer("host.logout.pending", count: pending) : shell.localizer("host.logout.done"))
    }
}

/// `password reset|change`.
struct PasswordCommand: HostCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "password", abstract: L("host.password.abstract"),
                             subcommands: [Reset.self, Change.self])
    }

    func run(in shell: Shell) throws {}

    struct Reset: HostCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "reset", abstract: L("host.password.reset.abstract"))
        }

        @Option(help: ArgumentHelp(L("host.password.reset.token"))) var token: String?

        func run(in shell: Shell) throws {
            if let token {
                let password = try shell.askNewPassword()
                try shell.accounts.confirmPasswordReset(token: token, newPassword: password)
                shell.console.line(shell.localizer("host.password.reset.done"))
                return
            }
            let email = try shell.ask("host.account.email")
            try shell.accounts.requestPasswordReset(email: email)
            shell.console.line(shell.localizer("host.password.reset.sent", ["email": email]))
        }
    }

    struct Change: HostCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "change", abstract: L("host.password.change.abstract"))
        }

        func run(in shell: Shell) throws {
            try shell.accounts.requireSession()
            let current = try shell.askSecret("host.account.currentPassword")
            let new = try shell.askNewPassword()
            try shell.accounts.changePassword(current: current, new: new)
            shell.console.line(shell.localizer("host.password.change.done"))
        }
    }
}

/// `profile [show] [--json]` and `profile edit [--username NAME] [--first-name …] [--last-name …]
/// [--gender …] [--language …]`: the profile on the server, and changing it (Track Your Hearing
/// FR3). `edit` with options changes just those; without any it asks each field.
struct ProfileCommand: HostCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "profile", abstract: L("host.profile.abstract"),
                             subcommands: [Show.self, Edit.self], defaultSubcommand: Show.self)
    }

    func run(in shell: Shell) throws {
        try Show.show(try shell.accounts.profile(), json: shell.services.prefersJSON, in: shell)
    }

    struct Show: HostCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "show", abstract: L("host.profile.show.abstract"))
        }

        @OptionGroup var output: JSONOutput

        func run(in shell: Shell) throws {
            try Self.show(try shell.accounts.profile(), json: output.isRequested(in: shell.services), in: shell)
        }

        static func show(_ profile: Profile, json: Bool, in shell: Shell) throws {
            if json {
                try shell.console.json(profile)
                return
            }
            let l = shell.localizer
            let none = l("host.profile.none")
            shell.printTable([
                (l("host.profile.username"), profile.username),
                (l("host.profile.email"), profile.email),
                (l("host.profile.firstName"), profile.firstName ?? none),
                (l("host.profile.lastName"), profile.lastName ?? none),
                (l("host.profile.gender"), profile.gender.title),
                (l("host.profile.language"), profile.language),
            ])
        }
    }

    struct Edit: HostCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "edit", abstract: L("host.profile.edit.abstract"))
        }

        @Option(help: ArgumentHelp(L("host.profile.option.username"), valueName: "name")) var username: String?
        @Option(name: .customLong("first-name"), help: ArgumentHelp(L("host.profile.option.firstName"), valueName: "name"))
        var firstName: String?
        @Option(name: .customLong("last-name"), help: ArgumentHelp(L("host.profile.option.lastName"), valueName: "name"))
        var lastName: String?
        @Option(help: ArgumentHelp(L("host.profile.option.gender"), valueName: Gender.allValueStrings.joined(separator: "|")))
        var gender: Gender?
        @Option(help: ArgumentHelp(L("host.profile.option.language"), valueName: "en|de")) var language: String?
        @OptionGroup var output: JSONOutput

        func run(in shell: Shell) throws {
            let current = try shell.accounts.profile()
            var update = ProfileUpdate()
            if username == nil, firstName == nil, lastName == nil, gender == nil, language == nil {
                update = try ask(current, shell: shell)
            } else {
                update.username = username
                update.firstName = firstName.map { $0 == "-" ? "" : $0 }
                update.lastName = lastName.map { $0 == "-" ? "" : $0 }
                update.gender = gender
                update.language = try language.map(Self.languageCode)
            }
            if let name = update.username {
                // Checked here as at registration; the server checks it too, and whether it is taken.
                try AccountService.checkUsername(name)
                if name == current.username { update.username = nil }
            }
            let profile = try shell.accounts.updateProfile(update)
            if update.username != nil {
                shell.console.line(shell.localizer("host.profile.renamed", ["old": current.username, "new": profile.username]))
            }
            try Show.show(profile, json: output.isRequested(in: shell.services), in: shell)
        }

        static func languageCode(_ text: String) throws -> String {
            guard let value = Language(code: text) else {
                throw UNITIError(L("host.language.unknown", ["code": text, "accepted": "en, de"]))
            }
            return value.rawValue
        }

        /// Asks each field; an empty answer keeps it, `-` clears a name.
        private func ask(_ profile: Profile, shell: Shell) throws -> ProfileUpdate {
            var update = ProfileUpdate()
            func field(_ key: String, _ current: String?, _ more: [String: String] = [:]) throws -> String? {
                let answer = try shell.ask(key, more.merging(["current": current ?? shell.localizer("host.profile.none")]) { $1 })
                if answer.isEmpty { return nil }
                return answer == "-" ? "" : answer
            }
            update.username = try field("host.profile.ask.username", profile.username)
            update.firstName = try field("host.profile.ask.firstName", profile.firstName)
            update.lastName = try field("host.profile.ask.lastName", profile.lastName)
            // Gender sits behind a disclosure switch (Track Your Hearing FR3): saying no stores "not
            // disclosed"; saying yes asks which, of those a person may choose, by their words.
            let disclosed = profile.gender != .undisclosed
            let currentSwitch = shell.localizer(disclosed ? "host.profile.disclosed" : "host.profile.notDisclosed")
            var asksGender = disclosed
            if let answer = try field("host.profile.ask.discloseGender", currentSwitch) {
                let yes = Confirmation.isYes(answer)
                guard yes || Confirmation.isNo(answer) else {
                    throw UNITIError(L("host.profile.badDisclosure", ["value": answer]))
                }
                asksGender = yes
                if !yes { update.gender = .undisclosed }
            }
            if asksGender {
                let choices = Gender.allCases.filter { $0 != .undisclosed }
                let listed = choices.enumerated().map { "\($0.offset + 1) \($0.element.title)" }.joined(separator: ", ")
                let current = disclosed ? profile.gender.title : shell.localizer("host.profile.none")
                if let answer = try field("host.profile.ask.gender", current, ["choices": listed]) {
                    if let number = Int(answer), choices.indices.contains(number - 1) {
                        update.gender = choices[number - 1]
                    } else if let value = Gender(argument: answer), value != .undisclosed {
                        update.gender = value
                    } else {
                        throw UNITIError(L("host.profile.badGender", ["value": answer, "accepted": listed]))
                    }
                }
            }
            if let language = try field("host.profile.ask.language", profile.language) {
                update.language = try Self.languageCode(language)
            }
            return update
        }
    }
}

/// `--gender female|male|diverse|not-applicable|undisclosed`, in the words of either language.
extension Gender: LocalizedArgumentWords {
    public static var wordsKey: String { "host.gender.words" }

    /// The gender in the person's words ("not applicable", not `notApplicable`).
    var title: String { L("host.gender.\(rawValue)") }
}

/// `account deactivate|delete|data`.
struct AccountCommand: HostCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "account", abstract: L("host.account.abstract"),
                             subcommands: [Deactivate.self, Delete.self, DataDownload.self])
    }

    /// `account delete`: the account and everything the server keeps about the person, once the
    /// password is confirmed; then, after a second question, this device's data directory (the
    /// shell ends then, as its database is gone).
    struct Delete: HostCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "delete", abstract: L("host.account.delete.abstract"))
        }

        func run(in shell: Shell) throws {
            let session = try shell.accounts.requireSession()
            shell.console.line(shell.localizer("host.account.delete.warning", ["username": session.username]))
            let password = try shell.askSecret("host.account.delete.password")
            try shell.accounts.deleteAccount(password: password)
            shell.console.line(shell.localizer("host.account.delete.done", ["username": session.username]))
            let directory = shell.services.dataDirectory
            guard try shell.confirm("host.account.delete.local", ["path": directory.path]) else {
                shell.console.line(shell.localizer("host.account.delete.localKept", ["path": directory.path]))
                return
            }
            try directory.erase()
            shell.console.line(shell.localizer("host.account.delete.localDone", ["path": directory.path]))
            shell.exitRequested = true
        }
    }

    /// `account data --out FILE`: everything the server keeps about the person, as one JSON file
    /// (the portal's data download), readable by the person only.
    struct DataDownload: HostCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "data", abstract: L("host.account.data.abstract"))
        }

        @Option(help: ArgumentHelp(L("host.account.data.out"))) var out: String

        func run(in shell: Shell) throws {
            let data = try shell.accounts.personalData()
            let path = (out as NSString).expandingTildeInPath
            guard FileManager.default.createFile(atPath: path, contents: data, attributes: [.posixPermissions: 0o600]) else {
                throw UNITIError(shell.localizer("host.account.data.cannotWrite", ["path": path]))
            }
            shell.console.line(shell.localizer("host.account.data.written", ["path": path, "bytes": "\(data.count)"]))
        }
    }

    func run(in shell: Shell) throws {}

    struct Deactivate: HostCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "deactivate", abstract: L("host.account.deactivate.abstract"))
        }

        func run(in shell: Shell) throws {
            let session = try shell.accounts.requireSession()
            guard try shell.confirm("host.account.deactivate.confirm", ["username": session.username]) else {
                shell.console.line(shell.localizer("host.account.deactivate.kept"))
                return
            }
            try shell.accounts.deactivate()
            shell.console.line(shell.localizer("host.account.deactivate.done"))
        }
    }
}
