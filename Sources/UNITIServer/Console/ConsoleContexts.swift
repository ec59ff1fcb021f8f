import Foundation
import Hummingbird

/// What every console page's context holds: the console's visit (``ConsoleVisitMiddleware``).
protocol ConsolePageContext: DoorContext {
    var console: ConsoleVisit { get }
    /// The study whose tabs the page shows (nil outside a study's pages).
    var shownStudy: ConsoleStudy? { get }
}

/// The context of a signed-in member's pages (their own and a study's).
protocol ConsoleMemberContext: ConsolePageContext {
    var staff: StaffSession { get }
}

/// Sign-in and enrolment: the visit, with a staff session or none.
struct ConsoleContext: ChildRequestContext, ConsolePageContext {
    var coreContext: CoreRequestContextStorage
    let server: ServerRequestContext
    let console: ConsoleVisit
    var shownStudy: ConsoleStudy? { nil }

    init(context: ServerRequestContext) throws {
        coreContext = context.coreContext
        server = context
        console = try context.console
    }

    var maxUploadSize: Int { ServerLimits.maximumBodyBytes }
}

/// A signed-in member's own pages and an administrator's (``RequireStaffSignIn``, and
/// ``RequireAdministrator`` for the latter, let only them through).
struct StaffContext: ChildRequestContext, ConsoleMemberContext {
    var coreContext: CoreRequestContextStorage
    let server: ServerRequestContext
    let console: ConsoleVisit
    let staff: StaffSession
    var shownStudy: ConsoleStudy? { nil }

    init(context: ServerRequestContext) throws {
        coreContext = context.coreContext
        server = context
        console = try context.console
        staff = try context.staff
    }

    var maxUploadSize: Int { ServerLimits.maximumBodyBytes }
}

/// A study's pages: the member, and the study with their role there (``ConsoleStudyAccess``
/// resolved it and checked the page's least role).
struct StudyContext: ChildRequestContext, ConsoleMemberContext {
    var coreContext: CoreRequestContextStorage
    let server: ServerRequestContext
    let console: ConsoleVisit
    let staff: StaffSession
    let study: ConsoleStudy
    var shownStudy: ConsoleStudy? { study }

    init(context: ServerRequestContext) throws {
        coreContext = context.coreContext
        server = context
        console = try context.console
        staff = try context.staff
        guard let study = context.consoleStudy else { throw ConsoleRefusal(.notFound, "console.error.notFound") }
        self.study = study
    }

    var maxUploadSize: Int { ServerLimits.maximumBodyBytes }
}
