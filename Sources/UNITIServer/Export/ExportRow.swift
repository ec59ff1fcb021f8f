import Foundation
import UNITIProtocol

/// One sheet of a study export, with what the server knows of it besides the sheet.
public struct ExportedSheet: Sendable {
    /// The participant's study pseudonym (never the username or address).
    public var participant: String
    public var sheet: AnswerSheet
    public var receivedAt: Date
    /// The module presenting the questionnaire (nil when the server cannot link it).
    public var module: String?
    /// The newest consent version of the study the participant agreed to (nil: none on record).
    public var consentVersion: Int? = nil
    /// The participant's site in the study (nil: none).
    public var site: String? = nil
    /// The arm a randomised study allocated the participant to (nil: not randomised).
    public var arm: String? = nil

    /// The sheet as export rows: one per answer (``ExportRow/rows(of:participant:receivedAt:module:)``).
    public var rows: [ExportRow] {
        ExportRow.rows(of: sheet, participant: participant, receivedAt: receivedAt, module: module).map { row in
            var row = row
            row.consentVersion = consentVersion
            row.site = site
            row.arm = arm
            return row
        }
    }
}

/// One row of the study export: one answer, with what is known of its sheet.
public struct ExportRow: Sendable, Codable, Hashable {
    public var participant: String
    public var sheetId: String
    public var questionnaireId: String
    public var questionnaireVersion: Int
    public var label: String
    /// The answer as text: a number, option values joined by commas, or the free text.
    public var value: String
    /// Client times with the participant's UTC offset.
    public var answeredAt: String
    public var startedAt: String
    public var endedAt: String?
    /// Server time (UTC).
    public var receivedAt: String
    /// The module that presents the questionnaire (nil only for rows the server cannot link).
    public var module: String?
    /// The sheet's microphone reading: level in dBFS and the time it was taken (participant's offset).
    public var microphoneDbfs: Double?
    public var microphoneMeasuredAt: String?
    /// The sheet's location reading: WGS 84 degrees, altitude and accuracy radius in metres, time of the fix.
    public var latitude: Double?
    public var longitude: Double?
    public var altitudeMeters: Double?
    public var accuracyMeters: Double?
    public var locationMeasuredAt: String?
    /// The newest consent version of the study the participant agreed to (nil: none on record).
    public var consentVersion: Int?
    /// The prompt the sheet answers (``AnswerSheet/promptId``), when it was delivered (participant's
    /// offset), and whether the answer came after its completion window.
    public var promptId: String?
    public var promptedAt: String?
    public var late: Bool?
    /// Who began the sheet (``AnswerSheet/initiatedBy``): `prompt` or `participant`.
    public var initiatedBy: String?
    /// The participant's site in the study (``StudySite``; nil: none).
    public var site: String?
    /// The participant's arm in a randomised study, or its code (`A`, `B`, …) in an export made
    /// blind to allocation (nil: not randomised).
    public var arm: String?
    /// The language the sheet was answered in (``AnswerSheet/language``; nil: not recorded). The
    /// only column that depends on it: values, labels and the codebook are the same in every language.
    public var language: String?

    public init(participant: String, sheetId: String, questionnaireId: String, questionnaireVersion: Int, label: String,
                value: String, answeredAt: String, startedAt: String, endedAt: String?, receivedAt: String) {
        self.participant = participant
        self.sheetId = sheetId
        self.questionnaireId = questionnaireId
        self.questionnaireVersion = questionnaireVersion
        self.label = label
        self.value = value
        self.answeredAt = answeredAt
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.receivedAt = receivedAt
    }

    /// Takes over the sheet's sensor readings (the same on every row of the sheet).
    public mutating func setReadings(_ sensors: SensorReadings?) {
        microphoneDbfs = sensors?.microphone?.dbfs
        microphoneMeasuredAt = sensors?.microphone?.measuredAt.text
        latitude = sensors?.location?.latitude
        longitude = sensors?.location?.longitude
        altitudeMeters = sensors?.location?.altitudeMeters
        accuracyMeters = sensors?.location?.accuracyMeters
        locationMeasuredAt = sensors?.location?.measuredAt.text
    }
}

extension ExportRow {
    /// The rows of one stored sheet: one per answer, in the order they were given (then by
    /// label), each with the sheet's times and readings; a sheet without answers still gets one
    /// row, since its times and readings are data too. Both stores export through it.
    static func rows(of sheet: AnswerSheet, participant: String, receivedAt: Date, module: String?) -> [ExportRow] {
        var base = ExportRow(participant: participant, sheetId: sheet.id.uuidString.lowercased(),
                             questionnaireId: sheet.questionnaireID, questionnaireVersion: sheet.questionnaireVersion,
                             label: "", value: "", answeredAt: "", startedAt: sheet.startedAt.text, endedAt: sheet.endedAt?.text,
                             receivedAt: Timestamps.format(receivedAt))
        base.module = module
        base.setReadings(sheet.sensors)
        base.promptId = sheet.promptId
        base.promptedAt = sheet.promptedAt?.text
        base.late = sheet.late
        base.initiatedBy = sheet.initiatedBy?.rawValue
        base.language = sheet.language
        guard !sheet.answers.isEmpty else { return [base] }
        let labels = sheet.answers.keys.sorted { a, b in
            let first = sheet.answers[a]!.answeredAt.date, second = sheet.answers[b]!.answeredAt.date
            return first == second ? a < b : first < second
        }
        return labels.map { label in
            let answer = sheet.answers[label]!
            var exported = base
            exported.label = label
            exported.value = answer.value.description
            exported.answeredAt = answer.answeredAt.text
            return exported
        }
    }
}
