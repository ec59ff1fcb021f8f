/// Every code the study server puts into an error body (``APIErrorBody``): stable names that
/// clients branch on and word from their own string tables (the portal's are
/// `portal.error.<code>`), falling back to the server's `message` for a code they do not know.
///
/// When each one is given is documented in the OpenAPI document (`components.schemas.ErrorCode`),
/// which lists exactly these; a test holds the server's sources, the document and the portal's
/// string tables to this list. A code is never renamed or reused for something else: clients in
/// the field branch on it. Besides these, a status the server has no code for answers
/// `http_<status>` (``httpStatus(_:)``).
public enum APIErrorCode: String, CaseIterable, Sendable {
    // Requests and routes
    case badRequest = "bad_request"
    case bodyTooLarge = "body_too_large"
    case internalError = "internal_error"
    case invalidBody = "invalid_body"
    case invalidQuery = "invalid_query"
    case methodNotAllowed = "method_not_allowed"
    case notFound = "not_found"
    case tokenInURL = "token_in_url"
    case unauthorized

    // Accounts
    case accountDeactivated = "account_deactivated"
    case emailTaken = "email_taken"
    case invalidCredentials = "invalid_credentials"
    case invalidCredentialsFormat = "invalid_credentials_format"
    case invalidEmail = "invalid_email"
    case invalidFirstName = "invalid_first_name"
    case invalidLanguage = "invalid_language"
    case invalidLastName = "invalid_last_name"
    case invalidRefreshToken = "invalid_refresh_token"
    case invalidToken = "invalid_token"
    case invalidUsername = "invalid_username"
    case notActivated = "not_activated"
    case passwordTooLong = "password_too_long"
    case tooManyAttempts = "too_many_attempts"
    case tooManyRequests = "too_many_requests"
    case usernameTaken = "username_taken"
    case weakPassword = "weak_password"
    case wrongPassword = "wrong_password"

    // Studies
    case consentRequired = "consent_required"
    case leaveForbidden = "leave_forbidden"
    case noConsent = "no_consent"
    case notAMember = "not_a_member"
    case studyClosed = "study_closed"
    case studyPasswordRequired = "study_password_required"
    case tooManyStudyAttempts = "too_many_study_attempts"
    case wrongStudyPassword = "wrong_study_password"

    // Answer sheets, records, prompt events
    case duplicateSheetId = "duplicate_sheet_id"
    case invalidAnswer = "invalid_answer"
    case invalidBatch = "invalid_batch"
    case invalidClientId = "invalid_client_id"
    case invalidCursor = "invalid_cursor"
    case invalidModuleId = "invalid_module_id"
    case invalidPromptEvent = "invalid_prompt_event"
    case invalidSheet = "invalid_sheet"
    case invalidTime = "invalid_time"
    case invalidUpdatedSince = "invalid_updated_since"
    case missingPayload = "missing_payload"
    case payloadTooLarge = "payload_too_large"
    case questionnaireDeactivated = "questionnaire_deactivated"
    case questionnaireUnavailable = "questionnaire_unavailable"
    case unknownItem = "unknown_item"

    // Study teams (the staff console and the coordinator commands)
    case consentFile = "consent_file"
    case consentMissing = "consent_missing"
    case consentTooLong = "consent_too_long"
    case disableAdmin = "disable_admin"
    case disableOtherStudies = "disable_other_studies"
    case disableSelf = "disable_self"
    case invalidAccess = "invalid_access"
    case invalidDate = "invalid_date"
    case invalidDates = "invalid_dates"
    case invalidEnrolment = "invalid_enrolment"
    case invalidName = "invalid_name"
    case invalidRole = "invalid_role"
    case invalidSchedules = "invalid_schedules"
    case invalidSecret = "invalid_secret"
    case invalidStaffCredentials = "invalid_staff_credentials"
    case invalidStudyId = "invalid_study_id"
    case invalidText = "invalid_text"
    case invalidTitle = "invalid_title"
    case invalidTotp = "invalid_totp"
    case invitationName = "invitation_name"
    case lastOwner = "last_owner"
    case noRequest = "no_request"
    case notInvited = "not_invited"
    case questionnaireOwned = "questionnaire_owned"
    case studyExists = "study_exists"
    case unknownLanguage = "unknown_language"
    case unknownModule = "unknown_module"
    case unknownSetting = "unknown_setting"
    case unknownStaff = "unknown_staff"
    case versionExists = "version_exists"
    case weakStudyPassword = "weak_study_password"
    // Sites (issue 48): `unknown_site` meets participants too (a site's enrolment code or link).
    case invalidSiteId = "invalid_site_id"
    case invalidSiteName = "invalid_site_name"
    case invalidSiteCountry = "invalid_site_country"
    case invalidSiteLanguage = "invalid_site_language"
    case unknownSite = "unknown_site"
    case notOnTeam = "not_on_team"
    case siteOwner = "site_owner"
    case siteOther = "site_other"
    case siteMoveOwner = "site_move_owner"
    case siteRole = "site_role"
    case noParticipant = "no_participant"
    // Eligibility screening (issue 48): joining a study that screens.
    case screeningRequired = "screening_required"
    case screeningInvalid = "screening_invalid"
    case screeningChanged = "screening_changed"
    case screeningUnavailable = "screening_unavailable"

    /// Who can meet the code: a participant (the API the apps call, the portal), or only a study
    /// team's staff (the console and the coordinator commands). Every participant code has its
    /// words in the portal's string tables in each language.
    public enum Audience: Sendable {
        case participant, staff
    }

    public var audience: Audience {
        switch self {
        case .consentFile, .consentMissing, .consentTooLong, .disableAdmin, .disableOtherStudies, .disableSelf,
             .invalidAccess, .invalidDate, .invalidDates, .invalidEnrolment, .invalidName, .invalidRole,
             .invalidSchedules, .invalidSecret, .invalidStaffCredentials, .invalidStudyId, .invalidText, .invalidTitle,
             .invalidTotp, .invitationName, .lastOwner, .noRequest, .notInvited, .questionnaireOwned, .studyExists,
             .unknownLanguage, .unknownModule, .unknownSetting, .unknownStaff, .versionExists, .weakStudyPassword,
             .invalidSiteId, .invalidSiteName, .invalidSiteCountry, .invalidSiteLanguage, .notOnTeam, .siteOwner, .siteOther,
             .siteMoveOwner, .siteRole, .noParticipant:
            .staff
        default:
            .participant
        }
    }

    /// The code of a status the server has no code of its own for (`http_415`).
    public static func httpStatus(_ status: Int) -> String { "http_\(status)" }
}
