import Foundation
import GRDB
import UNITICore

/// The audiogram (``TinnitusNavigatorShared/Audiogram``, shared with the portal) as the module keeps
/// it: a row of `tn_audiograms`, checked by the shared rules and worded by the module's strings.
extension Audiogram: HealthRecordEntry {
    public static let databaseTableName = "tn_audiograms"

    public init(id: String = HealthRecordID.make(), date: LocalDate, thresholds: [EarValues], discomfort: [EarValues] = [],
                pitchLeft: Int? = nil, pitchRight: Int? = nil, loudnessLeft: Int? = nil, loudnessRight: Int? = nil,
                note: String? = nil, now: Date) throws {
        self.init(id: id, date: date.description, thresholds: thresholds, discomfort: discomfort,
                  pitchLeft: pitchLeft, pitchRight: pitchRight, loudnessLeft: loudnessLeft, loudnessRight: loudnessRight,
                  note: note, createdAt: now, updatedAt: now)
        try validate()
    }

    public var localDate: LocalDate { (try? LocalDate(parsing: date)) ?? LocalDate(year: 1970, month: 1, day: 1) }

    /// Every value in its range, each frequency once, every standard frequency present for at
    /// least one ear; the first problem named in one line.
    public func validate() throws {
        if let problem = problems.first { throw UNITIError(problem.message) }
    }

    public static func checkFrequency(_ hz: Int) throws {
        if let problem = frequencyProblem(hz) { throw UNITIError(problem.message) }
    }

    /// A hearing level in −10…120 dB HL, in steps of 5.
    public static func checkLevel(_ level: Int, hz: Int, ear: String) throws {
        if let problem = levelProblem(level, hz: hz, ear: Ear(rawValue: ear) ?? .left) { throw UNITIError(problem.message) }
    }
}

extension Ear {
    public var title: String { L("tn.ear.\(rawValue)") }
}
