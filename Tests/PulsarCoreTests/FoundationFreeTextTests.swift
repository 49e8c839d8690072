import Foundation
@testable import PulsarCore
import Testing

/// The text helpers that stand in for Foundation's in the shipped modules (which link no
/// Foundation, to carry no ICU), checked against Foundation itself, which the tests may use.
@Suite("Text without Foundation")
struct FoundationFreeTextTests {
    @Test("String(printf:) prints every format the project uses as String(format:) does, over awkward values")
    func printfMatchesFoundation() {
        let values: [Double] = [0, -0.0, 1, -1, 0.5, 1.5, 2.5, 0.125, 0.0005, 1e-7, 123_456.789, -9.995, 1e21, 3.14159265, 2.675, .infinity, -.infinity]
        for format in ["%.0f", "%.1f", "%.2f", "%.3f", "%.4f", "%+.2f", "%+.3f", "%.3g", "%.6g", "%06.3f", "%8.2f", "%-8.2f|", "%e", "%.2e"] {
            for v in values {
                #expect(String(printf: format, v) == String(format: format, v), "\(format) of \(v)")
            }
        }
        for format in ["%d", "%02d", "%5d", "%-5d|", "%+d"] {
            for v in [0, 7, -7, 42, Int(Int32.min), Int(Int32.max)] {
                #expect(String(printf: format, v) == String(format: format, v), "\(format) of \(v)")
            }
        }
        // Beyond 32 bits Foundation prints the low half; the whole value is printed here.
        for v in [1 << 40, Int.min, Int.max] { #expect(String(printf: "%d", v) == String(v)) }
        #expect(String(printf: "%@: %+.2f ppm (95 %%: %d runs) – µs …", "dev:1", 12.345, 3) == "dev:1: +12.35 ppm (95 %: 3 runs) – µs …")
        #expect(String(printf: "\rdrift %.1f / %@ s", 1.25, "3600") == String(format: "\rdrift %.1f / %@ s", 1.25, "3600"))
        #expect(String(printf: "%02d:%06.3f", 3, 7.5) == "03:07.500")
        // A conversion without its argument prints nothing, a trailing % is dropped.
        #expect(String(printf: "a %d b %", 1) == "a 1 b ")
        #expect(String(printf: "%.1f and %.1f", 1.0) == "1.0 and ")
    }

    @Test("PathText takes paths apart as NSString's path methods do")
    func pathsAsNSString() {
        for path in ["a/b.json", "b.json", "/b.json", "a/b.input.wav", "a/.hidden", ".hidden", "a/b", "a/b/", "/", "dir.d/file", "x.tar.gz", "a/b."] {
            let ns = path as NSString
            #expect(PathText.lastComponent(path) == ns.lastPathComponent, "last of \(path)")
            #expect(PathText.deletingExtension(PathText.lastComponent(path)) == (ns.lastPathComponent as NSString).deletingPathExtension, "stem of \(path)")
            #expect(PathText.pathExtension(path) == ns.pathExtension, "extension of \(path)")
        }
        for (path, name) in [("logs/run.jsonl", "x.wav"), ("run.jsonl", "x.wav"), ("/run.jsonl", "x.wav"), ("a/b/c.jsonl", "y")] {
            let ns = ((path as NSString).deletingLastPathComponent as NSString).appendingPathComponent(name)
            #expect(PathText.sibling(of: path, named: name) == ns, "\(name) beside \(path)")
        }
        #expect(PathText.parent("a/b") == "a" && PathText.parent("b") == "." && PathText.parent("/b") == "/")
        for path in ["/a/./b/../c", "/a/b/../../..", "/x/sub/../s.wav", "/x/../../etc/passwd", "/a/b/"] {
            #expect(PathText.standardized(path) == URL(fileURLWithPath: path).standardized.path, "\(path)")
        }
    }

    @Test("Searching, replacing and trimming text match Foundation's")
    func searchAndTrim() {
        for (text, needle) in [("card - Name - x", " - "), ("abc", "d"), ("", "a"), ("aaa", "aa"), ("é-é", "-"), ("naïve café", "café")] {
            let found = text.range(ofText: needle), ns = text.range(of: needle)
            #expect(found == ns, "\(needle) in \(text)")
            #expect(text.contains(text: needle) == text.contains(needle))
            #expect(text.replacing(text: needle, with: "+") == text.replacingOccurrences(of: needle, with: "+"), "\(needle) in \(text)")
        }
        #expect("a\nb\n".replacing(text: "\n", with: "") == "ab")
        for text in ["  a b  ", "\t x\n", "\u{00A0}y\u{2003}", "\n\n", "", "z", " \r\n q \r\n"] {
            #expect(text.trimmedOfWhitespace == text.trimmingCharacters(in: .whitespacesAndNewlines), "\(text.debugDescription)")
            #expect(text.trimmedOfBlanks == text.trimmingCharacters(in: .whitespaces), "\(text.debugDescription)")
        }
    }

    @Test("Lock: a recursive lock is taken twice by its holder; two threads counting under a lock lose nothing")
    func locks() async {
        let recursive = Lock(recursive: true)
        recursive.lock(); recursive.lock(); recursive.unlock(); recursive.unlock()
        final class Counter: @unchecked Sendable { var n = 0; let lock = Lock() }
        let counter = Counter()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 { group.addTask { for _ in 0..<10_000 { counter.lock.withLock { counter.n += 1 } } } }
        }
        #expect(counter.n == 40_000)
    }
}
