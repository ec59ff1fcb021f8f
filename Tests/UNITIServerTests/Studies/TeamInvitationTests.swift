import Foundation
import HummingbirdTesting
import Testing
import UNITIProtocol
@testable import UNITIServer

/// Issue 44, hole 5: owners could attach any staff account to their study (listed on a team they
/// never joined, with name and address), and the answer told whether an address had a staff
/// account. Now an address is invited; the person accepts or declines in the console.
@Suite("Console: a team is joined by accepting an invitation (SQLite and PostgreSQL)", .timeLimit(.minutes(10)))
struct TeamInvitationTests {
    static let team = "/console/studies/alpha/team"

    /// The team page with the names and addresses an owner typed replaced, so two pages can be
    /// compared for everything else.
    static func shape(_ html: String, _ typed: [String]) -> String {
        typed.reduce(html) { $0.replacingOccurrences(of: $1, with: "…") }
            .replacing(#/name="csrf" value="[^"]*"/#, with: "csrf")
    }

    @Test("an owner's invitation reads the same whether the address has a staff account or not; the invited person is listed as invited, gets no role until they accept, and may decline; the owner may withdraw",
          arguments: StoreKind.allCases)
    func invitations(_ kind: StoreKind) async throws {
        try await kind.withDoors { doors, client, owner, _ in
            let fixture = doors.fixture
            let sam = try await fixture.enrolledStaff("sam2")
            try await fixture.role(.owner, sam, "beta")

            // One address with an account (sam2, of another team), one without.
            let known = try await owner.submit(Self.team, to: Self.team, ["email": sam.email, "role": "editor", "name": "Person A"])
            let unknown = try await owner.submit(Self.team, to: Self.team, ["email": "nia@team.example.org", "role": "editor", "name": "Person B"])
            #expect(known.status == .seeOther && unknown.status == .seeOther)
            #expect(known.headers[.location] == unknown.headers[.location] && known.headers[.location] == "\(Self.team)?notice=invited")
            #expect(Self.shape(known.text, []) == Self.shape(unknown.text, []))
            let page = try await owner.get(known.headers[.location]!)
            #expect(page.text.contains(#"<table id="invited">"#))
            #expect(page.text.contains("Person A") && page.text.contains(sam.email) && !page.text.contains("sam2 "), "what the owner typed, not the account's name")
            let rows = page.text.matches(of: #/<tr><td>(Person [AB])</td><td>([^<]*)</td><td>([^<]*)</td>/#).map { String($0.3) }
            #expect(rows.count == 2 && rows[0] == rows[1], "the same standing for both: \(rows)")
            #expect(try await fixture.store.studyRole(staffId: sam.id, studyId: "alpha") == nil, "no role before accepting")
            #expect(!(try await fixture.store.studyTeam(studyId: "alpha").contains { $0.member.email == sam.email }))
            let trail = try await fixture.store.auditTrail(studyId: "alpha").filter { $0.action.hasPrefix("team.") || $0.action.hasPrefix("staff.") }.suffix(2)
            #expect(trail.map(\.action) == ["team.invite", "team.invite"], "the study's trail tells nothing of accounts either")
            #expect(Set(trail.map { Set($0.detail.objectKeys) }).count == 1)

            // Both get a mail; the new address its enrolment link in it too.
            await fixture.environment.mail.idle()
            let spool = try #require(fixture.environment.mailer as? SpoolMailer)
            let mails = try spool.messages().map { try String(contentsOf: $0.url, encoding: .utf8) }
            #expect(mails.contains { $0.contains("To: \(sam.email)") && $0.contains("Study alpha") && !$0.contains("/console/enrol") })
            #expect(mails.contains { $0.contains("To: nia@team.example.org") && $0.contains("Study alpha") && $0.contains("/console/enrol?code=") })

            // The invited member sees the invitation, accepts, and is on the team.
            let invited = PortalBrowser(client)
            try await fixture.signIn(invited, sam)
            let start = try await invited.get("/console")
            #expect(start.text.contains(#"id="accept-alpha""#) && start.text.contains(#"id="study-beta""#) && !start.text.contains(#"id="study-alpha""#))
            #expect(try await invited.get("/console/studies/alpha").status == .notFound)
            let accepted = try await invited.submit("/console", to: "/console/invitations/accept", ["study": "alpha"])
            #expect(accepted.headers[.location] == "/console?notice=invitationAccepted")
            #expect(try await fixture.store.studyRole(staffId: sam.id, studyId: "alpha") == .editor)
            #expect(try await invited.get("/console/studies/alpha/questionnaires").status == .ok)
            #expect(try await invited.submit("/console", to: "/console/invitations/accept", ["study": "alpha"]).status == .unprocessableContent,
                    "an invitation is accepted once")

            // The other is withdrawn by the owner; an invitation of someone else is declined.
            let withdrawn = try await owner.submit(Self.team, to: "\(Self.team)/withdraw", ["email": "nia@team.example.org"])
            #expect(withdrawn.headers[.location] == "\(Self.team)?notice=invitationWithdrawn")
            #expect(try await fixture.store.studyInvitations(studyId: "alpha").isEmpty)
            let vic = try await fixture.enrolledStaff("vic")
            #expect(try await owner.submit(Self.team, to: Self.team, ["email": vic.email, "role": "viewer", "name": "Vic"]).status == .seeOther)
            let declining = PortalBrowser(client)
            try await fixture.signIn(declining, vic)
            #expect(try await declining.submit("/console", to: "/console/invitations/decline", ["study": "alpha"]).status == .seeOther)
            #expect(try await fixture.store.studyRole(staffId: vic.id, studyId: "alpha") == nil)
            #expect(try await fixture.store.auditTrail(studyId: "alpha").map(\.action).suffix(4) == ["team.accept", "team.withdraw", "team.invite", "team.decline"])

            // A name is asked for any invitation, whatever the address.
            for email in [vic.email, "nobody@team.example.org"] {
                let unnamed = try await owner.submit(Self.team, to: Self.team, ["email": email, "role": "viewer"])
                #expect(unnamed.status == .unprocessableContent && Doors.console(unnamed) == "invitation_name")
            }
            #expect(try await fixture.store.staffMember(email: "nobody@team.example.org") == nil)
            // The account made for an invitation is on the account-wide trail, naming the study.
            let added = try await fixture.store.auditTrail().first { $0.action == "staff.add" && $0.detail["email"] == .string("nia@team.example.org") }
            #expect(added?.studyId == nil && added?.detail["invitation"] == .string("alpha"))
        }
    }
}

extension JSONValue {
    var objectKeys: [String] {
        if case .object(let members) = self { return members.keys.sorted() }
        return []
    }
}
