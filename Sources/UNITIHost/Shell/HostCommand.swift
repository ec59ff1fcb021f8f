import ArgumentParser
import UNITICore

/// A command of the shell itself (`help`, `modules`, `use`, `status`, ...). Like a module's
/// `ShellCommand`, but run with the shell, whose state (current module, language) it may change.
public protocol HostCommand: ParsableCommand {
    func run(in shell: Shell) throws
}

extension HostCommand {
    public mutating func run() throws {
        throw UNITIError("internal: \(Self.commandName) must be run by the shell")
    }
}

/// How a command line ended.
public enum CommandOutcome: Equatable, Sendable {
    case success
    case failure
    case exit
}

/// Which program the shell is: the integrated host or one module's standalone program.
public enum ShellProgram: Sendable {
    case host(programName: String)
    case standalone(any UNITIModule)

    /// The kind of program, as modules see it.
    public var kind: ProgramKind {
        switch self {
        case .host: return .integrated
        case .standalone: return .standalone
        }
    }

    public var programName: String {
        switch self {
        case .host(let name): return name
        case .standalone(let module): return module.descriptor.programName
        }
    }

    public var isStandalone: Bool {
        if case .standalone = self { return true }
        return false
    }
}
