import Foundation
import GRDB
import UNITIProtocol

/// Gives each of the person's answer sheets pulled from the server to its owner: a module that
/// keeps sheets in its own tables (``PulledSheetKeeping``), else the core's sheet store
/// (``AnswerSheetStore``) under the owner. A sheet of a module this program does not have is
/// parked (``ParkedRecords``). A sheet without an owner (sent by a version before 0.2) goes to
/// the first module that keeps it, else to the shell.
///
/// Sheets this device sent come back too; keeping one again changes nothing.
public struct SheetRouter: Sendable {
    private let modules: [ModuleID: any UNITIModule]
    private let keepers: [any PulledSheetKeeping]

    public init(modules: [any UNITIModule]) {
        self.modules = Dictionary(modules.map { ($0.descriptor.id, $0) }, uniquingKeysWith: { first, _ in first })
        self.keepers = modules.compactMap { $0 as? any PulledSheetKeeping }
    }

    public func keep(_ sheet: AnswerSheet, in db: Database) throws {
        guard let owner = sheet.owner else {
            for keeper in keepers where try keeper.keepPulledSheet(sheet, in: db) { return }
            try AnswerSheetStore.keepPulled(sheet, owner: .shell, in: db)
            return
        }
        if owner == .shell {
            try AnswerSheetStore.keepPulled(sheet, owner: owner, in: db)
        } else if let module = modules[owner] {
            if let keeper = module as? any PulledSheetKeeping, try keeper.keepPulledSheet(sheet, in: db) { return }
            try AnswerSheetStore.keepPulled(sheet, owner: owner, in: db)
        } else {
            try ParkedRecords.park(sheet, owner: owner, in: db)
        }
    }
}
