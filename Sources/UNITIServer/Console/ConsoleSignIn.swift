import Foundation
import HTTPTypes
import Hummingbird
import UNITIProtocol
import UNITIText

/// Sign-in and enrolment: a member signs in with password and second factor, enrols from the mailed link, changes the password, signs out.
extension ConsolePage {
    static let signInForm = visitor("signInForm", "signin") { try await $0.showSignIn($1, $2) }
    static let signIn = visitor("signIn", .post, "signin") { try await $0.signIn($1, $2) }
    static let enrolForm = visitor("enrolForm", "enrol") { try await $0.showEnrolment($1, $2) }
    static let enrol = visitor("enrol", .post, "enrol") { try await $0.enrol($1, $2) }
    static let signOut = member("signOut", .post, "signout") { try await $0.signOut($1, $2) }
    static let passwordForm = member("passwordForm", "password") { routes, _, context in
        try await routes.page(ConsolePasswordPage(), context)
    }
    static let changePassword = member("changePassword", .post, "password") { try await $0.changePassword($1, $2) }

    /// This feature's pages, in the order of its tabs (``all``).
    static let signInPages: [ConsolePage] = [signInForm, signIn, enrolForm, enrol, signOut, passwordForm, changePassword]
}

extension ConsoleRoutes {

    func showSignIn(_ request: Request, _ context: ConsoleContext) async throws -> Response {
        let visit = context.console
        if visit.staff != nil { return visit.base.redirect(to: "/console") }
        return try await page(ConsoleSignInPage(), context, notice: notice(request, visit.language))
    }

    func signIn(_ request: Request, _ context: ConsoleContext) async throws -> Response {
        let form = try await PortalForm.read(request), visit = context.console
        do {
            let member = try await staff.signIn(email: form["email"], password: form["password"], code: form["code"], client: context.clientAddress)
            // A new secret at every sign-in: a cookie planted before is worth nothing.
            let secret = try await sessions.start(staffId: member.id)
            // Their mails follow the language they read the console in.
            if member.language != visit.language { try await store.setStaffLanguage(staffId: member.id, language: visit.language) }
            return visit.base.redirect(to: "/console", setting: [sessions.cookie(secret: secret, secure: visit.base.secure)])
        } catch {
            return try await failed(ConsoleSignInPage(email: form["email"]), context, error)
        }
    }

    func signOut(_ request: Request, _ context: StaffContext) async throws -> Response {
        let visit = context.console
        try await sessions.end(context.staff)
        return visit.base.redirect(to: "/console/signin?notice=signedOut", setting: [sessions.expiredCookie(secure: visit.base.secure)])
    }

    /// The enrolment form for the code of the mailed link, with a new secret; without a code,
    /// the form that asks for one.
    func showEnrolment(_ request: Request, _ context: ConsoleContext) async throws -> Response {
        guard let code = request.uri.queryParameters["code"].map(String.init), !code.isEmpty else {
            return try await page(ConsoleEnrolCodePage(), context)
        }
        do {
            let member = try await staff.enrolling(code: code)
            return try await page(try enrolPage(code: code, member: member, secret: staff.newSecret()), context)
        } catch {
            return try await failed(ConsoleEnrolCodePage(), context, error)
        }
    }

    func enrolPage(code: String, member: StaffMember, secret: String) throws -> ConsoleEnrolPage {
        let uri = TOTP(secret: Base32.decode(secret) ?? Data()).uri(account: member.email, issuer: StaffService.issuer)
        guard let qr = QRCodeSVG(uri) else { throw PortalTemplateError("the QR code of the enrolment could not be made") }
        let groups = stride(from: 0, to: secret.count, by: 4).map { start in
            String(secret.dropFirst(start).prefix(4))
        }.joined(separator: " ")
        return ConsoleEnrolPage(code: code, name: member.name, email: member.email, secret: secret, secretGroups: groups,
                                qrPath: qr.path, qrSize: qr.size)
    }

    /// Sets password and second factor; the answer shows the recovery codes, this once.
    func enrol(_ request: Request, _ context: ConsoleContext) async throws -> Response {
        let form = try await PortalForm.read(request)
        let code = form["code"].trimmingCharacters(in: .whitespacesAndNewlines)
        let language = context.console.language
        do {
            let member = try await staff.enrolling(code: code)
            let again = try enrolPage(code: code, member: member, secret: form["secret"])
            guard form["password"] == form["passwordRepeat"] else {
                return try await page(again, context, status: .unprocessableContent,
                                      error: PortalText.text("console.error.passwordsDiffer", language))
            }
            do {
                let codes = try await staff.enrol(code: code, password: form["password"], secret: form["secret"], totpCode: form["totp"])
                try await store.setStaffLanguage(staffId: member.id, language: language)
                return try await page(ConsoleRecoveryCodesPage(codes: codes), context)
            } catch {
                return try await failed(again, context, error)
            }
        } catch {
            return try await failed(ConsoleEnrolCodePage(), context, error)
        }
    }

    func changePassword(_ request: Request, _ context: StaffContext) async throws -> Response {
        let form = try await PortalForm.read(request), visit = context.console
        guard form["password"] == form["passwordRepeat"] else {
            return try await page(ConsolePasswordPage(), context, status: .unprocessableContent,
                                  error: PortalText.text("console.error.passwordsDiffer", visit.language))
        }
        do {
            try await staff.changePassword(context.staff.member, current: form["current"], new: form["password"])
            return visit.base.redirect(to: "/console/signin?notice=passwordChanged",
                                       setting: [sessions.expiredCookie(secure: visit.base.secure)])
        } catch {
            return try await failed(ConsolePasswordPage(), context, error)
        }
    }
}
