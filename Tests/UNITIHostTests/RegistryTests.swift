import Testing
import UNITICore
@testable import UNITIHost

@Suite("Module registry", .isolatedLanguage)
struct RegistryTests {
    @Test("two modules with one id are refused at start-up, naming both")
    func duplicateIDs() {
        #expect {
            _ = try ModuleRegistry([EchoModule(), EchoModule()], reservedNames: [], commandsAtTopLevel: false)
        } throws: { error in
            (error as? UNITIError)?.message == "modules Echo and Echo both use the id 'echo'"
        }
    }

    @Test("a module declaring one command name twice is refused")
    func duplicateCommands() {
        let module = EchoModule(extraCommands: [SayCommand.self])
        #expect {
            _ = try ModuleRegistry([module], reservedNames: [], commandsAtTopLevel: false)
        } throws: { error in
            (error as? UNITIError)?.message == "module Echo declares the command 'say' twice"
        }
    }

    @Test("a module id that is a shell command is refused in the integrated shell")
    func moduleIDClashesWithHostCommand() {
        #expect(throws: UNITIError.self) {
            _ = try ModuleRegistry([EchoModule(id: "status")], reservedNames: ["status"], commandsAtTopLevel: false)
        }
    }

    @Test("standalone, a module command that hides a shell command is refused")
    func standaloneCommandClash() {
        #expect {
            _ = try ModuleRegistry([EchoModule()], reservedNames: ["say"], commandsAtTopLevel: true)
        } throws: { error in
            (error as? UNITIError)?.message.contains("'say', which is a command of the shell") == true
        }
    }

    @Test("invalid module ids are refused")
    func invalidID() {
        #expect(throws: UNITIError.self) {
            _ = try ModuleRegistry([EchoModule(id: "Bad Id")], reservedNames: [], commandsAtTopLevel: false)
        }
    }

    @Test("the five real modules register together with the host commands")
    func realModulesRegister() throws {
        let fixture = try ShellFixture(modules: allRealModules)
        defer { fixture.remove() }
        #expect(fixture.shell.registry.modules.map { $0.descriptor.id } == ["tyt", "tys", "tyh", "tn", "son"])
        #expect(Set(fixture.shell.registry.modules.map { $0.descriptor.programName }) == [
            "track-your-tinnitus", "track-your-stress", "track-your-hearing", "tinnitus-navigator", "shades-of-noise",
        ])
    }
}
