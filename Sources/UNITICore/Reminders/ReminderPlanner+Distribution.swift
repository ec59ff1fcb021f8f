import UNITIProtocol

/// Random times inside a window with a minimum gap (drawn by ``PromptDraw``, which the server
/// shares to preview a study's week): the algorithm of the Track Your Tinnitus
/// thesis, 5.1 ("Gleichmäßige Verteilung von Notifications"), with its intent kept and its
/// flaws removed.
///
/// Where this departs from the thesis, on purpose:
/// - The thesis redrew a time until it was 15 minutes after the previous one, a loop without a
///   bound that could also push times past the window's end. Here every time is drawn once,
///   directly from the range it may take: N sorted points are drawn in the window shortened by
///   (N − 1) gaps, and the i-th point is moved by i gaps. Every result lies in the window, every
///   gap is at least the minimum, and the draw ends after exactly N steps.
/// - The thesis accepted a request when the window was "big enough" by a rougher test and, when
///   it was not, deleted every reminder already set. Here a request is feasible exactly when
///   (N − 1) · gap ≤ window length; otherwise it is refused with the largest N that fits, and
///   nothing else changes (the caller keeps its previous plan).
/// - N must be at least 1 (the thesis did not check).
extension ReminderPlanner {
    /// `count` times in `window`, sorted, consecutive times at least `minimumGap` minutes apart.
    ///
    /// - Throws: `UNITIError` when `count < 1`, or when the times cannot fit (the message names
    ///   the largest count that fits).
    public static func distribute(count: Int, in window: TimeWindow, minimumGap: Int,
                                  using random: any RandomSource) throws -> [TimeOfDay] {
        try checkFeasible(count: count, in: window, minimumGap: minimumGap)
        var generator = RandomSourceGenerator(source: random)
        return PromptDraw.minutes(count: count, in: window.start.minutes...window.end.minutes, gap: minimumGap, using: &generator)
            .map(TimeOfDay.init(minutes:))
    }

    /// Refuses a count that is below 1 or does not fit into the window with the gap.
    public static func checkFeasible(count: Int, in window: TimeWindow, minimumGap: Int) throws {
        guard count >= 1 else {
            throw UNITIError(L("reminders.error.countTooSmall", ["count": "\(count)"]))
        }
        let capacity = window.capacity(minimumGap: minimumGap)
        guard count <= capacity else {
            throw UNITIError(L("reminders.error.infeasible", [
                "count": "\(count)", "window": "\(window)", "gap": "\(minimumGap)", "largest": "\(capacity)",
            ]))
        }
    }
}
