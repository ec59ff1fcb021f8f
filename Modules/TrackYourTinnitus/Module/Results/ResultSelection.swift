/// Which results the per-item charts show, so that a long history stays readable
/// (Track Your Tinnitus thesis, ch. 5.2, "Auswahl der Ergebnisse").
///
/// What is implemented is the rule as the thesis's prose states it:
/// - up to 20 results: all of them;
/// - 21–40: delete every 4th result, 41–80: every 3rd, 81–160: every 2nd, in each band until
///   half of the results above 20 are deleted, i.e. `(count - 20) / 2` of them;
/// - more than 160: only the latest 160, then thinned as in the 81–160 band.
///
/// Where it departs from the printed code (listing in ch. 5.2):
/// - The printed deletion loop removes `computedData[k].remove(at: selectedResults.count - 1 - j)`,
///   i.e. the *first* n results instead of the selected every-k-th ones; here the selected
///   positions themselves are removed, as the prose says.
/// - "Every k-th" counts positions 1-based within the results considered (the 4th, 8th, ...),
///   which is the printed `i % k == 0 && i != 0` on 0-based indices; the oldest result is
///   never deleted. When a band runs out of k-th positions before reaching `(count - 20) / 2`
///   (e.g. 40 results: only 9 multiples of 4 below 40, but 10 to delete), deletion stops
///   there; the thesis's loop does the same, and the prose does not say otherwise.
/// - The x-axis length in points (16 per result, 320 by default) is a screen concern of the
///   iOS app and has no counterpart here; the terminal chart fits the terminal's width.
public enum ResultSelection {
    /// Above this many results only the latest this many are considered.
    public static let consideredMaximum = 160

    /// Indices (into `0..<count`, oldest first) of the results the charts show, ascending.
    public static func selectedIndices(count: Int) -> [Int] {
        guard count > 20 else { return Array(0..<max(count, 0)) }
        let window = min(count, consideredMaximum)
        let offset = count - window  // above 160 only the latest 160 are considered
        let factor: Int
        switch window {
        case 21...40: factor = 4
        case 41...80: factor = 3
        default: factor = 2
        }
        var toDelete = (window - 20) / 2
        var deleted = Set<Int>()
        var index = factor
        while toDelete > 0, index < window {
            deleted.insert(index)
            toDelete -= 1
            index += factor
        }
        return (0..<window).filter { !deleted.contains($0) }.map { $0 + offset }
    }

    /// The selected elements of `results` (oldest first).
    public static func select<T>(_ results: [T]) -> [T] {
        selectedIndices(count: results.count).map { results[$0] }
    }
}
