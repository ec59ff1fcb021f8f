import Foundation

/// The CONSORT 2010 flow diagram of a ``TrialFlow`` as SVG, drawn by the server (no script):
/// the phases enrolment, allocation, follow-up and analysis down the left, the assessed and the
/// excluded (with the reasons) at the top, the randomised below them, then a column per arm.
/// Every number is the flow's; the words are the reader's language (`console.consort.*`).
enum ConsortDiagram {
    private static let column = 250.0, gap = 20.0, phaseWidth = 130.0, margin = 20.0, lineHeight = 17.0

    /// The flow's counts as lines of text, the diagram's words (the console lists them under the
    /// picture, for those who do not see it): the enrolment's, then a line per arm.
    static func lines(_ flow: TrialFlow, language: String) -> [String] {
        func text(_ key: String, _ values: [String: String] = [:]) -> String { PortalText.text("console.consort.\(key)", language, values) }
        func count(_ key: String, _ n: Int?, _ values: [String: String] = [:]) -> String? {
            n.map { text(key, values.merging(["n": "\($0)"]) { $1 }) }
        }
        let excluded = flow.excluded
        let ineligible: [String?] = excluded.ineligibleByRule.isEmpty && excluded.ineligible == 0 ? []
            : [count("ineligible", excluded.ineligible, ["rules": rules(excluded)])]
        var lines = ([count("assessed", flow.assessed), count("excluded", excluded.total)] + ineligible + [count("declined", excluded.declined),
                     count("awaiting", excluded.awaitingDecision), count("left", excluded.leftBeforeRandomisation),
                     count("noConsent", excluded.noConsent), count("notYet", excluded.notYetRandomised), count("randomised", flow.randomised)]).compactMap { $0 }
        for arm in flow.arms {
            let counts = [count("allocated", arm.allocated), count("received", arm.received), count("notReceived", arm.notReceived),
                          count("completed", arm.completed, ["visit": flow.primaryVisit ?? ""]), count("lost", arm.lostToFollowUp),
                          count("withdrew", arm.withdrew), count("following", arm.inFollowUp), count("analysed", arm.analysed),
                          count("excludedFromAnalysis", arm.excludedFromAnalysis)].compactMap { $0 }
            lines.append((arm.label.map { "\($0) (\(arm.arm))" } ?? arm.arm) + ": " + counts.joined(separator: "; "))
        }
        return lines
    }

    /// The rules someone did not meet, each with its count: `age 2, distress 5`.
    private static func rules(_ excluded: TrialFlow.Excluded) -> String {
        excluded.ineligibleByRule.filter { $0.count > 0 }.map { "\($0.rule) \($0.count)" }.joined(separator: ", ")
    }

    static func svg(_ flow: TrialFlow, language: String) -> String {
        func text(_ key: String, _ values: [String: String] = [:]) -> String { PortalText.text("console.consort.\(key)", language, values) }
        func count(_ key: String, _ n: Int, _ values: [String: String] = [:]) -> String { text(key, values.merging(["n": "\(n)"]) { $1 }) }

        let arms = max(flow.arms.count, 1)
        let content = max(Double(arms) * (column + gap) - gap, 620)
        let left = margin + phaseWidth + gap
        let width = left + content + margin
        let centre = left + content / 2
        var shapes: [String] = []

        // Enrolment: the assessed, the excluded beside the line down, the randomised.
        let screened = flow.excluded.ineligibleByRule.isEmpty && flow.excluded.ineligible == 0 ? []
            : ["• " + count("ineligibleShort", flow.excluded.ineligible)]
              + flow.excluded.ineligibleByRule.map { "   – " + count("byRule", $0.count, ["rule": $0.rule]) }
        let excluded = [count("excluded", flow.excluded.total)] + screened + ["• " + count("declined", flow.excluded.declined),
                        "• " + count("awaiting", flow.excluded.awaitingDecision), "• " + count("left", flow.excluded.leftBeforeRandomisation),
                        "• " + count("noConsent", flow.excluded.noConsent), "• " + count("notYet", flow.excluded.notYetRandomised)]
        let assessedTop = margin, assessedHeight = box(lines: 1)
        let excludedTop = assessedTop + assessedHeight + 24, excludedHeight = box(lines: excluded.count)
        let randomisedTop = excludedTop + excludedHeight + 24, randomisedHeight = box(lines: 1)
        shapes.append(rectangle(x: centre - 140, y: assessedTop, width: 280, lines: [count("assessed", flow.assessed)], id: "assessed"))
        shapes.append(rectangle(x: centre + 40, y: excludedTop, width: min(340, left + content - centre - 40), lines: excluded, id: "excluded"))
        shapes.append(line(centre, assessedTop + assessedHeight, centre, randomisedTop, arrow: true))
        shapes.append(line(centre, excludedTop + excludedHeight / 2, centre + 40, excludedTop + excludedHeight / 2, arrow: true))
        shapes.append(rectangle(x: centre - 120, y: randomisedTop, width: 240, lines: [count("randomised", flow.randomised)], id: "randomised"))

        // A column per arm: allocation, follow-up, analysis.
        let branch = randomisedTop + randomisedHeight + 20
        let allocationTop = branch + 20, allocationHeight = box(lines: 4)
        let followTop = allocationTop + allocationHeight + 30, followHeight = box(lines: 4)
        let analysisTop = followTop + followHeight + 30, analysisHeight = box(lines: 2)
        let first = left + (content - (Double(flow.arms.count) * (column + gap) - gap)) / 2
        shapes.append(line(centre, randomisedTop + randomisedHeight, centre, branch, arrow: false))
        if flow.arms.count > 1 {
            shapes.append(line(first + column / 2, branch, first + Double(flow.arms.count - 1) * (column + gap) + column / 2, branch, arrow: false))
        }
        for (index, arm) in flow.arms.enumerated() {
            let x = first + Double(index) * (column + gap), middle = x + column / 2
            let name = arm.label.map { "\($0) (\(arm.arm))" } ?? arm.arm
            shapes.append(line(middle, branch, middle, allocationTop, arrow: true))
            shapes.append(rectangle(x: x, y: allocationTop, width: column, lines: [
                name, count("allocated", arm.allocated), "• " + count("received", arm.received), "• " + count("notReceived", arm.notReceived),
            ], id: "allocated-\(arm.arm)", rows: 4))
            shapes.append(line(middle, allocationTop + allocationHeight, middle, followTop, arrow: true))
            let follow: [String] = if let completed = arm.completed, let visit = flow.primaryVisit {
                [count("completed", completed, ["visit": visit]), count("lost", arm.lostToFollowUp ?? 0),
                 count("withdrew", arm.withdrew ?? 0), count("following", arm.inFollowUp ?? 0)]
            } else {
                [text("noVisit")]
            }
            shapes.append(rectangle(x: x, y: followTop, width: column, lines: follow, id: "followup-\(arm.arm)", rows: 4))
            shapes.append(line(middle, followTop + followHeight, middle, analysisTop, arrow: true))
            let analysis: [String] = if let analysed = arm.analysed {
                [count("analysed", analysed), "• " + count("excludedFromAnalysis", arm.excludedFromAnalysis ?? 0)]
            } else {
                [text("noVisit")]
            }
            shapes.append(rectangle(x: x, y: analysisTop, width: column, lines: analysis, id: "analysed-\(arm.arm)", rows: 2))
        }

        // The phases down the left.
        for (key, top, bottom) in [("enrolment", assessedTop, randomisedTop + randomisedHeight), ("allocation", allocationTop, allocationTop + allocationHeight),
                                   ("followUp", followTop, followTop + followHeight), ("analysis", analysisTop, analysisTop + analysisHeight)] {
            shapes.append("""
                <rect x="\(margin)" y="\(top)" width="\(phaseWidth)" height="\(bottom - top)" rx="4" fill="#dbe8f5" stroke="#5b7fa6"/>\
                <text x="\(margin + phaseWidth / 2)" y="\((top + bottom) / 2 + 4)" text-anchor="middle" font-weight="bold">\(escaped(text(key)))</text>
                """)
        }
        let height = analysisTop + analysisHeight + margin
        let title = escaped(flow.site.map { text("titleSite", ["study": flow.study, "site": $0]) } ?? text("title", ["study": flow.study]))
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" viewBox="0 0 \(Int(width)) \(Int(height))" \
            font-family="sans-serif" font-size="12" role="img" aria-labelledby="consort-title">
            <title id="consort-title">\(title)</title>
            <defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">\
            <path d="M 0 0 L 10 5 L 0 10 z" fill="#333"/></marker></defs>
            <rect width="100%" height="100%" fill="#fff"/>
            \(shapes.joined(separator: "\n"))
            </svg>

            """
    }

    /// A box's height for so many lines of text.
    private static func box(lines: Int) -> Double { Double(lines) * lineHeight + 14 }

    /// A box with its lines, left-aligned, each cut to what fits (the whole line in its tooltip).
    /// `rows`: the lines the box is high enough for (at least its own), so a row's boxes line up.
    private static func rectangle(x: Double, y: Double, width: Double, lines: [String], id: String, rows: Int = 0) -> String {
        let fits = Int((width - 16) / 6.4)
        let text = lines.enumerated().map { index, line -> String in
            let shown = line.count > fits ? String(line.prefix(fits - 1)) + "…" : line
            return "<tspan x=\"\(x + 8)\" y=\"\(y + 20 + Double(index) * lineHeight)\">\(escaped(shown))</tspan>"
        }.joined()
        return """
            <g id="\(escaped(id))"><title>\(escaped(lines.joined(separator: "\n")))</title>\
            <rect x="\(x)" y="\(y)" width="\(width)" height="\(box(lines: max(rows, lines.count)))" fill="#fff" stroke="#333"/>\
            <text>\(text)</text></g>
            """
    }

    private static func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, arrow: Bool) -> String {
        "<line x1=\"\(x1)\" y1=\"\(y1)\" x2=\"\(x2)\" y2=\"\(y2)\" stroke=\"#333\"\(arrow ? " marker-end=\"url(#arrow)\"" : "")/>"
    }

    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
