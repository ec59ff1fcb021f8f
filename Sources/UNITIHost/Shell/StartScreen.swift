import Foundation
import UNITICore

/// The first screen of a standalone program whose module asks for it (``GuestStartOffering``)
/// when nobody is logged in: log in, register, reset a forgotten password, or continue as a
/// guest (Shades Of Noise thesis 6.4.1–6.4.3, FA20). The choices run the shell's own account
/// commands, so there is one login, one registration and one reset in the code base.
///
/// Guest use keeps everything on this device; a later `login` asks before guest data goes to
/// the account (``AccountService/login(_:password:attachGuestData:)``).
struct StartScreen {
    let shell: Shell

    /// Whether the screen applies: a standalone program on a terminal, its module wants it, and
    /// no session exists.
    static func applies(to shell: Shell, interactive: Bool) -> Bool {
        guard interactive, case .standalone(let module) = shell.program,
              (module as? any GuestStartOffering)?.offersGuestStart(in: shell.program.kind) == true else { return false }
        return ((try? shell.sessions.current()) ?? nil) == nil
    }

    /// Shows the choices until the person is logged in or continues as a guest (also on empty
    /// input or the end of input).
    func run() {
        let l = shell.localizer
        while true {
            shell.console.line(l("host.start.title", ["program": shell.program.programName]))
            shell.printTable([
                ("1", l("host.start.login")), ("2", l("host.start.register")),
                ("3", l("host.start.forgot")), ("4", l("host.start.guest")),
            ])
            let answer: String
            do {
                guard let line = try shell.services.input.readLine(prompt: l("host.start.prompt") + " ") else { return guestChosen() }
                answer = line.trimmingCharacters(in: .whitespaces).lowercased()
            } catch {
                return guestChosen()
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
                shell.console.error(l("host.start.unknown", ["answer": answer]))
            }
        }
    }

    private func guestChosen() {
        shell.console.line(shell.localizer("host.start.asGuest"))
    }
}
