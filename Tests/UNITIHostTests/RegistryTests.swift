import Foundation
import Testing
import UNITICore
@testable import UNITIHost
import UNITIProtocol

@Suite("Module registry", .isolatedLanguage, .timeLimit(.minutes(10)))
struct RegistryTests {
    @Test("two modules with one id are refused at start-up, naming both")
    func duplicateIDs() {
        #expect {
            _ = try ModuleRegistry([EchoModule(), EchoModule()], program: .integrated, reservedNames: [])
        } throws: { error in
            (error as? UNITIError)?.message == "modules Echo and Echo both use the id 'echo'"
        }
    }

    @Test("a module declaring one command name twice is refused")
    func duplicateCommands() {
        let module = EchoModule(extraCommands: [SayCommand.self])
        #expect {
            _ = try ModuleRegistry([module], program: .integrated, reservedNames: [])
        } throws: { error in
            (error as? UNITIError)?.message == "module Echo declares the command 'say' twice"
        }
    }

    @Test("a module id that is a shell command is refused in the integrated shell")
    func moduleIDClashesWithHostCommand() {
        #expect(throws: UNITIError.self) {
            _ = try ModuleRegistry([EchoModule(id: ModuleID(known: "status"))], program: .integrated, reservedNames: ["status"])
        }
    }

    @Test("a module may not take the shell's own id")
    func shellID() {
        #expect {
            _ = try ModuleRegistry([EchoModule(id: .shell)], program: .integrated, reservedNames: [])
        } throws: { error in
            (error as? UNITIError)?.message.contains("belongs to the shell") == true
        }
    }

    @Test("standalone, a module command that hides a shell command is refused")
    func standaloneCommandClash() {
        #expect {
            _ = try ModuleRegistry([EchoModule()], program: .standalone, reservedNames: ["say"])
        } throws: { error in
            (error as? UNITIError)?.message.contains("'say', which is a command of the shell") == true
        }
    }

    @Test("a command of the standalone set only is checked only in a standalone program")
    func standaloneOnlyCommandClash() throws {
        let module = EchoModule(standaloneCommands: [SayCommand.self])
        _ = try ModuleRegistry([module], program: .integrated, reservedNames: [])
        #expect(throws: UNITIError.self) { _ = try ModuleRegistry([module], program: .standalone, reservedNames: []) }
    }

    @Test("module ids follow one rule: 2–16 lowercase letters or digits, starting with a letter")
    func moduleIDRule() throws {
        for valid in ["tyt", "tn", "son", "a1", "abcdefghijklmnop"] { #expect(ModuleID(rawValue: valid) != nil, "\(valid)") }
        for invalid in ["", "t", "Bad Id", "TYT", "1tyt", "ty-t", "abcdefghijklmnopq", "tyt "] {
            #expect(ModuleID(rawValue: invalid) == nil, "\(invalid)")
        }
        // Decoding applies the same rule: a study or record naming a bad id does not decode.
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([ModuleID].self, from: Data(#"["Bad"]"#.utf8)) }
    }

    @Test("the five real modules register together with the host commands, in the order of the one list")
    func realModulesRegister() throws {
        let fixture = try ShellFixture(modules: allRealModules)
        #expect(fixture.shell.registry.modules.map { $0.descriptor.id } == ModuleCatalog.ids)
        #expect(fixture.shell.registry.modules.map { $0.descriptor.programName } == ModuleCatalog.all.map(\.programName))
    }
}
