import Foundation
import UNITITesting
import Testing
import UNITICore
import UNITIProtocol

/// The integrated `uniti` program, driven as a user or a script would.
@Suite("uniti end to end", .enabled(if: Builds.isIntegrated), .timeLimit(.minutes(15)))
struct HostProgramTests {
    @Test("-c runs one command in a fresh data directory and lists all five modules")
    func oneCommand() throws {
        let data = TemporaryDataDirectory()
        let result = try Program.run("uniti", ["--data-dir", data.path, "-c", "modules"])
        #expect(result.status == 0)
        #expect(result.err.isEmpty)
        for id in ModuleCatalog.ids {
            #expect(result.out.contains("\n  \(id) "))
        }
        #expect(result.out.contains("integrated build"))
        let mode = try FileManager.default.attributesOfItem(atPath: data.path + "/uniti.sqlite")[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
    }

    @Test("a failing -c command exits non-zero with one line that suggests the right command")
    func failingCommand() throws {
        let data = TemporaryDataDirectory()
        let result = try Program.run("uniti", ["--data-dir", data.path, "-c", "modlues"])
        #expect(result.status == 1)
        #expect(result.out.isEmpty)
        #expect(result.err == "error: unknown command 'modlues'. Did you mean 'modules'?\n")
    }

    @Test("--script runs every line, answers follow their command, and a failure makes the status non-zero")
    func script() throws {
        let data = TemporaryDataDirectory()
        let script = data.path + ".script"
        try "# a comment line\nuse tyt\nabout\nback\nnosuch\nmodules --json\n".write(toFile: script, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: script) }
        let result = try Program.run("uniti", ["--data-dir", data.path, "--script", script])
        #expect(result.status == 1)
        #expect(result.out.contains("TrackYourTinnitus (tyt) 0.2.0"))
        #expect(result.out.contains("\"build\" : \"integrated\""))
        #expect(result.err == "error: unknown command 'nosuch'. Type 'help' for the list of commands.\n")
    }

    @Test("piped standard input is read line by line without line editing; all good means status 0")
    func pipedInput() throws {
        let data = TemporaryDataDirectory()
        let result = try Program.run("uniti", ["--data-dir", data.path], stdin: "use son\nabout\nback\nstatus --json\n")
        #expect(result.status == 0)
        #expect(result.err.isEmpty)
        #expect(result.out.contains("ShadesOfNoise (son)"))
        #expect(result.out.contains("\"dataDirectory\" : \"\(data.path)\""))
        #expect(!result.out.contains("uniti> "))
    }

    @Test("--version names the version and the build kind")
    func version() throws {
        let result = try Program.run("uniti", ["--version"])
        #expect(result.status == 0)
        #expect(result.out == "uniti \(UNITIVersion.string) (integrated build)\n")
    }

    @Test("--help describes the options")
    func help() throws {
        let result = try Program.run("uniti", ["--help"])
        #expect(result.status == 0)
        for option in ["--data-dir", "--lang", "--script", "-c", "--version", "--json"] {
            #expect(result.out.contains(option))
        }
    }

    @Test("an unknown option or language is one line and a usage status")
    func badOptions() throws {
        let bad = try Program.run("uniti", ["--frobnicate"])
        #expect(bad.status == 64)
        #expect(bad.err.contains("--frobnicate"))
        let language = try Program.run("uniti", ["--lang", "xx", "-c", "modules"])
        #expect(language.status == 64)
        #expect(language.err.contains("unknown language 'xx'"))
    }

    @Test("the data directory comes from --data-dir, else UNITI_HOME, else XDG_DATA_HOME/uniti")
    func dataDirectoryResolution() throws {
        let home = TemporaryDataDirectory()
        let viaHome = try Program.run("uniti", ["-c", "status --json"], environment: ["UNITI_HOME": home.path])
        #expect(viaHome.out.contains("\"dataDirectory\" : \"\(home.path)\""))
        let xdg = TemporaryDataDirectory()
        let viaXDG = try Program.run("uniti", ["-c", "status --json"], environment: ["XDG_DATA_HOME": xdg.path])
        #expect(viaXDG.out.contains("\"dataDirectory\" : \"\(xdg.path)/uniti\""))
        #expect(FileManager.default.fileExists(atPath: xdg.path + "/uniti/uniti.sqlite"))
    }

    @Test("status names the server of --server, else the stored one, else says it works offline")
    func statusNamesTheServer() throws {
        let data = TemporaryDataDirectory()
        let offline = try Program.run("uniti", ["--data-dir", data.path, "-c", "status"])
        #expect(offline.out.contains("none (working offline)"), "\(offline.out)")
        let given = try Program.run("uniti", ["--data-dir", data.path, "--server", "http://127.0.0.1:9", "-c", "status"])
        #expect(given.out.contains("http://127.0.0.1:9") && !given.out.contains("working offline"), "\(given.out)")
        #expect(try Program.run("uniti", ["--data-dir", data.path, "-c", "config set server http://127.0.0.1:7"]).status == 0)
        let stored = try Program.run("uniti", ["--data-dir", data.path, "-c", "status --json"])
        #expect(stored.out.contains("\"server\" : \"http://127.0.0.1:7\""), "\(stored.out)")
        let overridden = try Program.run("uniti", ["--data-dir", data.path, "--server", "http://127.0.0.1:9", "-c", "status --json"])
        #expect(overridden.out.contains("\"server\" : \"http://127.0.0.1:9\""), "\(overridden.out)")
    }

    @Test("--lang de and the stored language setting switch the texts")
    func german() throws {
        let data = TemporaryDataDirectory()
        let once = try Program.run("uniti", ["--data-dir", data.path, "--lang", "de", "-c", "modules"])
        #expect(once.out.contains("Module (integrierte Ausgabe):"))
        try Program.run("uniti", ["--data-dir", data.path, "-c", "language de"])
        let kept = try Program.run("uniti", ["--data-dir", data.path, "-c", "nosuch"])
        #expect(kept.err.contains("unbekannter Befehl"))
        let overridden = try Program.run("uniti", ["--data-dir", data.path, "--lang", "en", "-c", "nosuch"])
        #expect(overridden.err.contains("unknown command"))
    }

    @Test("a database written by a newer version is refused with a message and left byte-for-byte unchanged")
    func newerDatabase() throws {
        let data = TemporaryDataDirectory()
        try Program.run("uniti", ["--data-dir", data.path, "-c", "modules"])
        let path = data.path + "/uniti.sqlite"
        let sqlite = Process()
        sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        sqlite.arguments = [path, "INSERT INTO grdb_migrations VALUES ('tyt.v99-future')"]
        try sqlite.run()
        sqlite.waitUntilExit()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let result = try Program.run("uniti", ["--data-dir", data.path, "-c", "modules"])
        #expect(result.status == 70)
        #expect(result.err.contains("newer version of UNITI (unknown steps: tyt.v99-future)"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test("the standalone programs of this integrated build refuse to run, saying how to build them")
    func standaloneProgramsRefuse() throws {
        for name in Builds.standalonePrograms {
            let result = try Program.run(name, ["--version"])
            #expect(result.status == 2)
            #expect(result.out.isEmpty)
            #expect(result.err.contains("\(name): this binary is an integrated build"))
            #expect(result.err.contains("Scripts/build-standalone"))
            #expect(result.err.split(separator: "\n").count == 1)
        }
    }
}
