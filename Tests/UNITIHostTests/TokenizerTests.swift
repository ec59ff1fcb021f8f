import Testing
@testable import UNITIHost

@Suite("Tokenizer", .timeLimit(.minutes(10)))
struct TokenizerTests {
    @Test("splits on whitespace, keeps quoted spaces and escapes", arguments: [
        ("tyt fill", ["tyt", "fill"]),
        ("  say   a  b ", ["say", "a", "b"]),
        ("say 'two words' \"and three words\"", ["say", "two words", "and three words"]),
        (#"say it\'s"#, ["say", "it's"]),
        (#"say "a \"quoted\" word""#, ["say", #"a "quoted" word"#]),
        (#"say 'back\slash'"#, ["say", #"back\slash"#]),
        ("say a\\ b", ["say", "a b"]),
        ("say ''", ["say", ""]),
        ("say x # a comment", ["say", "x"]),
        ("say x#y", ["say", "x#y"]),
        ("# only a comment", []),
        ("", []),
    ])
    func tokenizes(line: String, expected: [String]) throws {
        #expect(try Tokenizer.tokenize(line) == expected)
    }

    @Test("an unterminated quote or a trailing backslash is an error, not a guess")
    func failures() {
        #expect(throws: Tokenizer.Failure.unterminatedQuote("'")) { try Tokenizer.tokenize("say 'open") }
        #expect(throws: Tokenizer.Failure.unterminatedQuote("\"")) { try Tokenizer.tokenize("say \"open") }
        #expect(throws: Tokenizer.Failure.danglingEscape) { try Tokenizer.tokenize("say \\") }
    }

    @Test("partial lines tell whether the cursor is inside a word")
    func partial() {
        #expect(Tokenizer.partial("tyt fi").words == ["tyt", "fi"])
        #expect(Tokenizer.partial("tyt fi").endsInWord)
        #expect(!Tokenizer.partial("tyt ").endsInWord)
        #expect(Tokenizer.partial("say 'open wo").words == ["say", "open wo"])
    }
}
