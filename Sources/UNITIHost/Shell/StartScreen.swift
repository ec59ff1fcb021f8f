import Foundation
import UNITICore

/// The first screen of a standalone program whose module asks for it (``StartScreenOffering``)
/// when nobody is logged in: log in, register, reset a forgotten password, and, where the app
/// allowed it, continue as a guest (Shades Of Noise thesis 6.4.1–6.4.3, FA20; Track Your Stress
/// FR1–FR3 without a guest). The choices run the shell's own account commands, so there is one
/// login, one registration and one reset in the code base.
///
/// Guest use keeps everything on this device; a later `login` asks before guest data goes to
/// the account (``AccountService/login(_:password:attachGuestData:)``). A program used with an
/// account only shows the screen whatever its input (a script answers it like a person) and
/// refuses its module's commands until someone is logged in (``Shell/requireAccount(for:)``).
struct StartScreen {
    let shell: Shell
    let choices: StartScreenChoices

    /// The screen, when it applies: a standalone program whose module wants it, nobody logged
    /// in, and a terminal (or, for an account-only program, any input).
    static func applying(to shell: Shell, interactive: Bool) -> StartScreen? {
        guard case .standalone(let module) = shell.program,
              let choices = (module as? any StartScreenOffering)?.startScreen(in: shell.program.kind),
              interactive || choices == .accountOnly,
              ((try? shell.sessions.current()) ?? nil) == nil else { return nil }
        return StartScreen(shell: shell, choices: choices)
    }

    /// Shows the choices until the person is logged in or continues as a guest (also on empty
    /// input or the end of input). Without a guest choice, empty input asks again and the end
    /// of input leaves the screen (the module's commands then say that an account is needed).
    func run() {
        let l = shell.localizer
        let guest = choices == .accountOrGuest
        while true {
            shell.console.line(l("host.start.title", ["program": shell.program.programName]))
            var rows = [("1", l("host.start.login")), ("2", l("host.start.register")), ("3", l("host.start.forgot"))]
            if guest { rows.append(("4", l("host.start.guest"))) }
            shell.printTable(rows)
            let answer: String
            do {
                guard let line = try shell.services.input.readLine(prompt: l(guest ? "host.start.prompt" : "host.start.promptAccount") + " ") else {
                    return guest ? guestChosen() : shell.console.line(l("host.start.accountNeeded"))
                }
                answer = line.trimmingCharacters(in: .whitespaces).lowercased()
            } catch {
                return guest ? guestChosen() : shell.console.line(l("host.start.accountNeeded"))
            }
            if !guest, ["", "4", "guest"].contains(answer) {
                shell.console.error(l("host.start.noGuest", ["program": shell.program.programName]))
                continue
            }
            switch answer {
            case "1", "login":
                if shell.execute(words: ["login"]) == .success, ((try? shell.sessions.current()) ?? nil) != nil { return }
            case "2", "register":
                if shell.execute(words: ["register"]) == .success {
                    shell.console.line(l("host.start.afterRegister"))
                }
            case "3", "forgot", "reset":
                shell.execute(words: ["password", "reset"])
            case "", "4", "guest":
                return guestChosen()
            default:
                shell.console.error(l(guest ? "host.start.unknown" : "host.start.unknownAccount", ["answer": answer]))
            }
        }
    }

    private func guestChosen() {
        shell.console.line(shell.localizer("host.start.asGuest"))
    }
}
