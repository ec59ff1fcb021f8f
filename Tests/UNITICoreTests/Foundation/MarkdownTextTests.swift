import Testing
import UNITICore

/// A study's consent is Markdown: the portal and the console show it as HTML that holds only the
/// elements Markdown makes, and the shell as plain text (``MarkdownText``).
@Suite("Markdown consent texts", .timeLimit(.minutes(10)))
struct MarkdownTextTests {
    static let consent = """
        # Mood in daily life

        We ask about **your mood** several times a day, *for eight weeks*.

        ## What we keep

        - your answers, under a pseudonym
        - the times you answered
          - nested: nothing else

        1. Read this.
        2. Agree below.

        Questions: [the study team](https://example.org/team) or [write](mailto:team@example.org).
        """

    @Test("headings, lists, emphasis and links become their elements, headings under the page's own")
    func rendersMarkdown() {
        let html = MarkdownText.html(Self.consent, topHeadingLevel: 3)
        #expect(html.hasPrefix("<h3>Mood in daily life</h3>"))
        #expect(html.contains("<h4>What we keep</h4>"))
        #expect(html.contains("<strong>your mood</strong>"))
        #expect(html.contains("<em>for eight weeks</em>"))
        #expect(html.contains("<ul><li>your answers, under a pseudonym</li>"))
        #expect(html.contains("<ol><li>Read this.</li><li>Agree below.</li></ol>"))
        #expect(html.contains(#"<a href="https://example.org/team">the study team</a>"#))
        #expect(html.contains(#"<a href="mailto:team@example.org">write</a>"#))
        #expect(!html.contains("#"))
        #expect(MarkdownText.html("# Title").hasPrefix("<h1>Title</h1>"))
    }

    @Test("raw HTML in the source is text: no script, no image, no event handler reaches the page")
    func rawHTMLIsText() {
        let html = MarkdownText.html("""
            <script>alert(1)</script>

            <img src=x onerror="alert(2)">

            Inline <b onclick="alert(3)">bold</b> and <iframe src="https://evil.example"></iframe>.

            <a href="javascript:alert(4)">raw link</a>
            """)
        for element in ["<script", "<img", "<b ", "<b>", "<iframe", "<a "] {
            #expect(!html.contains(element), "\(element) reached the HTML: \(html)")
        }
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(html.contains("&lt;img src=x onerror=&quot;alert(2)&quot;&gt;"))
        #expect(html.contains("&lt;b onclick=&quot;alert(3)&quot;&gt;bold&lt;/b&gt;"))
    }

    @Test("raw HTML without a closing tag (<br>, <img>) does not turn the rest of the text into raw Markdown; code keeps its <")
    func unclosedHTMLKeepsTheRestRendered() {
        let html = MarkdownText.html("""
            First line<br>second line.

            <img src=x>

            - still a **list**

            Code: `a < b` and

            ```
            <tag> in a block
            ```
            """)
        #expect(html.contains("<ul><li>still a <strong>list</strong></li></ul>"), "\(html)")
        #expect(html.contains("First line&lt;br&gt;second line."))
        #expect(html.contains("<code>a &lt; b</code>"), "\(html)")
        #expect(html.contains("<pre><code>&lt;tag&gt; in a block"), "\(html)")
        #expect(!html.contains("&amp;lt;"), "escaped twice: \(html)")
    }

    @Test("links only to http, https and mailto: javascript:, data: and hidden schemes keep their text and lose the link")
    func onlySafeLinks() {
        let cases = [
            "[a](javascript:alert(1))", "[a](JavaScript:alert(1))", "[a]( javascript:alert(1))", "[a](&#106;avascript:alert(1))",
            "[a](java&#x09;script:alert(1))", "[a](data:text/html;base64,PHNjcmlwdD4=)", "[a](vbscript:msgbox)", "[a](/relative)",
            "[a](//evil.example)", "![a](javascript:alert(1))", "[a][r]\n\n[r]: javascript:alert(1)",
        ]
        for markdown in cases {
            let html = MarkdownText.html(markdown)
            #expect(!html.contains("<a"), "\(markdown) became a link: \(html)")
            #expect(!html.lowercased().contains("href"), "\(markdown): \(html)")
            #expect(html.contains("a"), "\(markdown) lost its text: \(html)")
        }
        #expect(MarkdownText.html("[a](https://example.org/?q=1&r=2)") == #"<p><a href="https://example.org/?q=1&amp;r=2">a</a></p>"#)
        // A picture is a link to it, never loaded into the page.
        #expect(MarkdownText.html("See ![plan](https://example.org/plan.png).") == #"<p>See <a href="https://example.org/plan.png">plan</a>.</p>"#)
        // An address that tries to leave its attribute stays inside it.
        let breakout = MarkdownText.html(#"[a](https://example.org/"onmouseover="alert(1))"#)
        #expect(!breakout.contains(#"" onmouseover"#) && !breakout.contains(#""onmouseover=""#), "\(breakout)")
        #expect(breakout.contains("&quot;onmouseover=&quot;"), "\(breakout)")
    }

    @Test("character references are text: an escaped tag shows as the tag, never becomes one")
    func entitiesAreText() {
        let html = MarkdownText.html("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &auml; &#x3C;b&#x3E; &#0; &bogus;")
        #expect(!html.contains("<script") && !html.contains("<b>"))
        #expect(html == "<p>&lt;script&gt;alert(1)&lt;/script&gt; &amp; ä &lt;b&gt; \u{FFFD} &amp;bogus;</p>")
        #expect(MarkdownText.plainText("&lt;b&gt; &amp; &auml;") == "<b> & ä")
    }

    @Test("the HTML is well-formed: a text cannot close the page's elements around it")
    func wellFormed() {
        for markdown in ["</div></details></li></ul>", "*open emphasis", "**a *b** c*", "- a\n  - b\n- c", "> quote\n>\n> - item"] {
            let html = MarkdownText.html(markdown)
            var open: [String] = []
            var index = html.startIndex
            while let start = html[index...].firstIndex(of: "<") {
                let end = html[start...].firstIndex(of: ">")!
                let tag = html[html.index(after: start)..<end].split(separator: " ")[0]
                if tag.hasPrefix("/") {
                    #expect(open.popLast() == String(tag.dropFirst()), "\(markdown): \(html)")
                } else if tag != "br", tag != "hr" {
                    open.append(String(tag))
                }
                index = html.index(after: end)
            }
            #expect(open == [], "\(markdown) left \(open) open: \(html)")
        }
    }

    @Test("the shell's plain text: headings as lines, bullets and numbers, no emphasis markers, links as text (address)")
    func plainText() {
        #expect(MarkdownText.plainText(Self.consent) == """
            Mood in daily life

            We ask about your mood several times a day, for eight weeks.

            What we keep

            • your answers, under a pseudonym
            • the times you answered
              • nested: nothing else

            1. Read this.
            2. Agree below.

            Questions: the study team (https://example.org/team) or write (mailto:team@example.org).
            """)
        #expect(MarkdownText.plainText("See <https://example.org>.") .contains("https://example.org"))
        #expect(MarkdownText.plainText("[https://example.org](https://example.org)") == "https://example.org")
        #expect(MarkdownText.plainText("<script>x</script>") == "<script>x</script>")
        #expect(MarkdownText.plainText("[a](javascript:alert(1))") == "a")
    }

    @Test("plain text keeps no control characters a terminal would obey")
    func plainTextWithoutControls() {
        let text = MarkdownText.plainText("Clear \u{1B}[2J the screen\u{07} and \u{9B}31m colour &#27;[0m")
        #expect(!text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        #expect(text.contains("Clear [2J the screen and 31m colour"))
    }

    @Test("a plain text without Markdown reads as it was written, paragraph by paragraph")
    func plainTextUnchanged() {
        let text = "We keep your answers for the study.\n\nYou may leave at any time; 'study leave' asks what becomes of them."
        #expect(MarkdownText.plainText(text) == text)
        #expect(MarkdownText.plainText("Line one\r\nline two") == "Line one line two")
    }
}
