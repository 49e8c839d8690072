import PulsarCore
import Testing

/// The backstop every printed message passes through: one line, at most 300 characters, the
/// rule at its end kept, a long path shortened to its file's name before anything is cut.
@Suite("One-line messages")
struct MessageLineTests {
    @Test("Line breaks, U+2028/2029, NEL and bidirectional overrides are escaped; ordinary text is unchanged")
    func escapes() {
        #expect(MessageText.oneLine("a\nb\u{2028}c\u{2029}d\u{85}e\u{202E}f\u{2067}g") == "a\\nb\\u{2028}c\\u{2029}d\\u{85}e\\u{202e}f\\u{2067}g")
        #expect(MessageText.oneLine("é ☃ 日本 \u{200D}") == "é ☃ 日本 \u{200D}")
        #expect(MessageText.line("pulsar: error: x.json: fine [rule]") == "pulsar: error: x.json: fine [rule]")
    }

    @Test("A long message keeps its start and its rule, within 300 characters; a long path becomes its file's name first")
    func bounded() {
        let long = "pulsar: error: " + String(repeating: "word ", count: 200) + "[the-rule]"
        let cut = MessageText.line(long)
        #expect(cut.count <= 300 && cut.hasPrefix("pulsar: error: word") && cut.hasSuffix("[the-rule]") && cut.contains("characters left out"), "\(cut)")
        let path = "/tmp/" + String(repeating: "deep/", count: 60) + "pulse.json:"
        let named = MessageText.line("pulsar: error: \(path) " + String(repeating: "x", count: 100) + " [r]")
        #expect(named == "pulsar: error: …/pulse.json: " + String(repeating: "x", count: 100) + " [r]", "\(named)")
        // A name of 200 000 characters quoted in a message: cut where it is echoed.
        #expect(MessageText.quoted(String(repeating: "n", count: 200_000)).count < 200)
    }
}
