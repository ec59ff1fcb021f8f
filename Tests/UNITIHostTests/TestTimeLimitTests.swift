import Foundation
import Testing

/// Every test runs under a time limit, so a test that hangs (a server that never answers, a pty
/// that never prints its prompt) fails on its own within minutes instead of eating CI's 90.
/// Swift Testing applies a suite's `.timeLimit` to each test in it and in its extensions; this
/// scan finds every top-level type of the test sources that holds an `@Test` and checks that its
/// `@Suite` carries one (an extension counts through the type it extends).
@Suite("Every test has a time limit", .timeLimit(.minutes(10)))
struct TestTimeLimitTests {
    static let testsFolder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()

    /// A top-level declaration: its kind, its name, and the attribute lines directly above it.
    struct Declaration {
        var kind: String
        var name: String
        var attributes: String
        var body: String
    }

    static func declarations(in source: String) -> [Declaration] {
        let lines = source.components(separatedBy: "\n")
        let pattern = /^(?:(?:public|final|private|fileprivate|internal) )*(struct|class|enum|actor|extension) (\w+)/
        let starts = lines.indices.filter { lines[$0].firstMatch(of: pattern) != nil }
        return starts.enumerated().map { index, start in
            let match = lines[start].firstMatch(of: pattern)!
            var first = start
            // Attribute lines above the declaration, including the continuation lines of a
            // multi-line `@Suite(` (indented, or its closing parenthesis).
            while first > 0, lines[first - 1].hasPrefix("@") || lines[first - 1].hasPrefix(" ") || lines[first - 1].hasPrefix(")") {
                first -= 1
            }
            let end = index + 1 < starts.count ? starts[index + 1] : lines.count
            return Declaration(kind: String(match.1), name: String(match.2),
                               attributes: lines[first..<start].joined(separator: "\n") + lines[start],
                               body: lines[start..<end].joined(separator: "\n"))
        }
    }

    /// The names of test types (and extensions of them) that hold a test but no time limit.
    static func unlimited(_ sources: [String]) -> [String] {
        let all = sources.flatMap(declarations(in:))
        let limited = Set(all.filter { $0.kind != "extension" && $0.attributes.contains(".timeLimit(") }.map(\.name))
        return all.filter { $0.body.contains("@Test") && !limited.contains($0.name) }.map(\.name)
    }

    @Test("every suite in the test sources sets a time limit for its tests")
    func everySuiteLimited() throws {
        let files = FileManager.default.enumerator(at: Self.testsFolder, includingPropertiesForKeys: nil)!
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
        #expect(files.count > 50)
        let missing = Self.unlimited(try files.map { try String(contentsOf: $0, encoding: .utf8) })
        #expect(missing.isEmpty, "suites without .timeLimit: \(missing.joined(separator: ", "))")
    }

    @Test("the scan tells a limited suite from an unlimited one, through attributes on several lines and extensions")
    func scanSeesLimits() {
        let limited = """
        @Suite("a",
               .serialized, .timeLimit(.minutes(10)))
        struct A {
            @Test func one() {}
        }
        extension A {
            @Test func two() {}
        }
        """
        let unlimited = """
        @Suite("b")
        @MainActor
        final class B {
            @Test func one() {}
        }
        struct Helper {}
        extension C {
            @Test func three() {}
        }
        """
        #expect(Self.unlimited([limited]).isEmpty)
        #expect(Self.unlimited([unlimited]) == ["B", "C"])
    }
}
