import Foundation
import Testing
import UNITIProtocol
import UNITITesting
@testable import UNITICore

/// `profile edit` (Track Your Hearing FR3) against a real `uniti-server` on loopback: the
/// username can be changed in the shell as in the portal (unique, checked by the server, the old
/// one no longer logs in), and gender is chosen and shown in words.
@Suite("Editing the profile in the shell", .serialized, .timeLimit(.minutes(10)))
struct ProfileEditTests {
    static func participant(_ name: String, on server: StudyServer) throws -> ModuleHarness {
        try SessionRefresherTests.participant(name, on: server)
    }

    @Test("a new username is the login from then on; the old one no longer logs in; a taken one is refused")
    func changeUsername() throws {
        let server = try StudyServer()
        let nora = try Self.participant("nora", on: server)
        _ = try Self.participant("otto", on: server)

        let taken = nora.runCapturing("profile edit --username otto")
        #expect(!taken.succeeded && taken.err.contains("this username is taken"), "\(taken.err)")
        let bad = nora.runCapturing("profile edit --username x")
        #expect(!bad.succeeded && bad.err.split(separator: "\n").count == 1, "\(bad.err)")

        let renamed = nora.runCapturing("profile edit --username nora.m")
        #expect(renamed.succeeded, "\(renamed.err)")
        #expect(renamed.out.contains("Your username is now nora.m"), "\(renamed.out)")
        #expect(nora.runCapturing("profile").out.contains("nora.m"))

        // The next login on this data directory is by the new name; the old one is refused.
        #expect(nora.runCapturing("logout --yes").succeeded)
        nora.input.append(["password-nora"])
        let old = nora.runCapturing("login nora")
        #expect(!old.succeeded && old.err.contains("the login or the password is wrong"), "\(old.err)")
        nora.input.append(["password-nora"])
        let new = nora.runCapturing("login nora.m")
        #expect(new.succeeded, "\(new.err)")
    }

    @Test("a username changed elsewhere still logs in on this data directory (the same account, by its pseudonym)")
    func renamedElsewhere() throws {
        let server = try StudyServer()
        let phone = try Self.participant("ida", on: server)
        #expect(phone.runCapturing("logout --yes").succeeded)
        let laptop = try ModuleHarness([])
        try laptop.services.sessions.setServer(server.url)
        laptop.input.append(["password-ida"])
        #expect(laptop.runCapturing("login ida").succeeded)
        #expect(laptop.runCapturing("profile edit --username ida.k").succeeded)
        phone.input.append(["password-ida"])
        let back = phone.runCapturing("login ida.k")
        #expect(back.succeeded, "\(back.err)")
    }

    @Test("gender is asked and shown in words of the person's language, never as a code")
    func genderInWords() throws {
        let server = try StudyServer()
        let eve = try Self.participant("eve", on: server)
        #expect(eve.runCapturing("profile edit --gender not-applicable").out.contains("not applicable"))
        try CurrentLanguage.$scope.withValue(LockedValue(.german)) { () throws in
            let divers = eve.runCapturing("profile edit --gender divers")
            #expect(divers.succeeded && divers.out.contains("divers"), "\(divers.err)")
            // By questions: the choices are listed by number and word; a number chooses.
            eve.input.append(["", "", "", "j", "2", ""])
            let asked = eve.runCapturing("profile edit")
            #expect(asked.succeeded, "\(asked.err)")
            let prompts = eve.input.prompts.joined(separator: "\n")
            #expect(prompts.contains("1 weiblich, 2 männlich, 3 divers, 4 nicht zutreffend"), "\(prompts)")
            #expect(!prompts.contains("notApplicable"))
            #expect(asked.out.contains("männlich"), "\(asked.out)")
            let help = eve.runCapturing("help profile edit")
            #expect(help.out.contains("--username") && help.out.contains("weiblich|männlich"), "\(help.out)")
        }
    }
}
