import Foundation
import UNITICore

extension HearingLossGrade {
    /// The grade in the current language (each key written out, so the key check sees them).
    public var title: String {
        switch self {
        case .normal: L("tn.audiogram.grade.normal")
        case .mild: L("tn.audiogram.grade.mild")
        case .moderate: L("tn.audiogram.grade.moderate")
        case .moderatelySevere: L("tn.audiogram.grade.moderately-severe")
        case .severe: L("tn.audiogram.grade.severe")
        case .profound: L("tn.audiogram.grade.profound")
        case .complete: L("tn.audiogram.grade.complete")
        }
    }
}
