import Foundation

// The view models of the pages a visitor sees before signing in, the start page and the error
// page (``PortalRoutes``). A form's echo of what was typed is nil when there is nothing to echo.

/// `login.mustache`: the login form, keeping the name typed after a failed attempt.
struct LoginPage: PortalPage {
    var template: String { "login" }
    var login: String?
}

/// `reactivate.mustache`: a deactivated account's way back (the password is asked again).
struct ReactivatePage: PortalPage {
    var template: String { "reactivate" }
    var login: String
}

/// `register.mustache`: the registration form, keeping name and address after a refusal.
struct RegisterPage: PortalPage {
    var template: String { "register" }
    var username: String?
    var email: String?
}

/// `activate.mustache`: the activation form, filled from a mailed link.
struct ActivatePage: PortalPage {
    var template: String { "activate" }
    var code: String?
}

/// `forgot.mustache`: the request for a password-reset code.
struct ForgotPasswordPage: PortalPage {
    var template: String { "forgot" }
    var email: String?
}

/// `reset.mustache`: the new password with the mailed code.
struct ResetPasswordPage: PortalPage {
    var template: String { "reset" }
    var code: String?
}

/// `error.mustache`: the layout's error line and a way back (the message is the layout's).
struct ErrorPage: PortalPage {
    var template: String { "error" }
}

/// `start.mustache`: the signed-in person's studies and their standing in each.
struct StartPage: PortalPage {
    var template: String { "start" }
    var studies: [Membership]

    struct Membership: Sendable {
        var title: String
        var status: String
    }
}
