/// Splits a command line into words the way a POSIX shell does for the parts that matter here:
/// whitespace separates words; `'single quotes'` keep everything literally; `"double quotes"`
/// keep spaces and allow `\"` and `\\`; a backslash outside quotes escapes the next character;
/// a `#` at the start of a word begins a comment (useful in scripts).
public enum Tokenizer {
    public enum Failure: Error, Equatable, CustomStringConvertible {
        case unterminatedQuote(Character)
        case danglingEscape

        public var description: String {
            switch self {
            case .unterminatedQuote(let quote): return "unterminated \(quote) quote"
            case .danglingEscape: return "a backslash at the end of the line escapes nothing"
            }
        }
    }

    /// The words of `line`, or a failure for an unterminated quote or trailing backslash.
    public static func tokenize(_ line: String) throws(Failure) -> [String] {
        let scan = scan(line)
        if let failure = scan.failure { throw failure }
        return scan.words
    }

    /// The words so far and whether the line ends inside a word (for completion, which must
    /// work on unfinished input).
    public static func partial(_ line: String) -> (words: [String], endsInWord: Bool) {
        let scan = scan(line)
        return (scan.words, scan.endsInWord)
    }

    private struct Scan {
        var words: [String] = []
        var failure: Failure?
        var endsInWord = false
    }

    private static func scan(_ line: String) -> Scan {
        var result = Scan()
        var current = ""
        var inWord = false
        var quote: Character?
        var escaping = false

        for character in line {
            if escaping {
                current.append(character)
                escaping = false
                inWord = true
                continue
            }
            if let open = quote {
                if character == open {
                    quote = nil
                } else if open == "\"", character == "\\" {
                    escaping = true
                } else {
                    current.append(character)
                }
                continue
            }
            switch character {
            case "\\":
                escaping = true
                inWord = true
            case "'", "\"":
                quote = character
                inWord = true
            case "#" where !inWord:
                // Comment to the end of the line.
                result.endsInWord = false
                return finish(&result, current: current, inWord: inWord, quote: quote, escaping: escaping, commentCut: true)
            default:
                if character.isWhitespace {
                    if inWord {
                        result.words.append(current)
                        current = ""
                        inWord = false
                    }
                } else {
                    current.append(character)
                    inWord = true
                }
            }
        }
        return finish(&result, current: current, inWord: inWord, quote: quote, escaping: escaping, commentCut: false)
    }

    private static func finish(_ result: inout Scan, current: String, inWord: Bool, quote: Character?,
                               escaping: Bool, commentCut: Bool) -> Scan {
        if inWord { result.words.append(current) }
        result.endsInWord = inWord && !commentCut
        if let quote { result.failure = .unterminatedQuote(quote) }
        else if escaping { result.failure = .danglingEscape }
        return result
    }
}
