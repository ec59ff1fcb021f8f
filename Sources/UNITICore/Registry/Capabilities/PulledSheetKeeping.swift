import GRDB
import UNITIProtocol

/// A module that keeps the person's answer sheets in tables of its own (Track Your Tinnitus's
/// results): sync hands it every sheet pulled from the server that it owns, or that names no
/// owner (sheets sent by versions before 0.2), inside the sync's transaction.
///
/// The sheet may be one this device sent itself; keeping it must then change nothing. A sheet
/// the module does not keep (returns false) goes to the core's sheet store under its owner.
public protocol PulledSheetKeeping: UNITIModule {
    func keepPulledSheet(_ sheet: AnswerSheet, in db: Database) throws -> Bool
}
