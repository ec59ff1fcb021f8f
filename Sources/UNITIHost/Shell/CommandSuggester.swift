/// Finds the known command closest to a mistyped one, for "did you mean ...".
public enum CommandSuggester {
    /// The candidate with the smallest edit distance to `word`, if it is close enough to be a
    /// plausible typo (at most a third of the word's length, at least one edit).
    public static func closest(to word: String, among candidates: [String]) -> String? {
        let limit = max(1, word.count / 3)
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(word.lowercased(), candidate.lowercased())
            if distance <= limit, distance < (best?.distance ?? .max) {
                best = (candidate, distance)
            }
        }
        if best == nil {
            // A typed prefix of exactly one command is also a good guess ("modu" -> "modules").
            let prefixed = candidates.filter { $0.hasPrefix(word) && !word.isEmpty }
            if prefixed.count == 1 { return prefixed[0] }
        }
        return best?.candidate
    }

    /// Levenshtein distance with adjacent transpositions counted as one edit.
    public static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previousPrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], previousPrevious[j - 2] + 1)
                }
            }
            previousPrevious = previous
            previous = current
        }
        return previous[b.count]
    }
}
