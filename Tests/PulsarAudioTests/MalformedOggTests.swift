import Foundation
import PulsarBundle
import PulsarCore
import Testing
@testable import PulsarAudio

/// An Ogg Vorbis file whose headers are not whole is refused before libsndfile reads it (libsndfile
/// 1.2.0 keeps 5 784 bytes each time it refuses one), with a message of ours naming what is wrong;
/// a whole file still opens. The files are a written one, cut or patched here, each page's CRC
/// computed again so that only the named fault is left.
@Suite struct MalformedOggTests {
    /// A 1-second stereo Ogg Vorbis file of a tone, as bytes.
    static let whole: [UInt8] = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("whole-\(UUID().uuidString).ogg").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try! OggVorbisWriter(writing: path, sampleRate: SampleRate(48_000)!, channels: 2, comments: [])
        let frames = (0..<48_000 * 2).map { Float(0.3 * sin(Double($0 / 2) * 2 * .pi * 220 / 48_000)) }
        try! frames.withUnsafeBufferPointer { try writer.write($0) }
        try! writer.close()
        return try! [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    }()

    /// The byte ranges of the file's pages (27-byte header, segment table, body).
    static func pages(_ bytes: [UInt8]) -> [Range<Int>] {
        var ranges: [Range<Int>] = [], at = 0
        while at + 27 <= bytes.count {
            let segments = Int(bytes[at + 26])
            let body = bytes[(at + 27)..<(at + 27 + segments)].reduce(0) { $0 + Int($1) }
            ranges.append(at..<(at + 27 + segments + body))
            at += 27 + segments + body
        }
        return ranges
    }

    /// `bytes` with the page in `page` given its CRC again (Ogg's CRC-32: polynomial 0x04C11DB7,
    /// not reflected, initial 0, over the page with its CRC field zeroed).
    static func recrc(_ bytes: [UInt8], page: Range<Int>) -> [UInt8] {
        var out = bytes
        for i in 22..<26 { out[page.lowerBound + i] = 0 }
        var crc: UInt32 = 0
        for byte in out[page] {
            crc ^= UInt32(byte) << 24
            for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? (crc << 1) ^ 0x04C1_1DB7 : crc << 1 }
        }
        for i in 0..<4 { out[page.lowerBound + 22 + i] = UInt8((crc >> (8 * UInt32(i))) & 0xFF) }
        return out
    }

    /// The file with `change` made to its page `index`, CRC fixed.
    static func patched(page index: Int, _ change: (inout [UInt8], Range<Int>) -> Void) -> [UInt8] {
        var bytes = whole
        let page = pages(bytes)[index]
        change(&bytes, page)
        return recrc(bytes, page: page)
    }

    /// The offset of the first `pattern` in `bytes[range]`.
    static func find(_ pattern: [UInt8], in bytes: [UInt8], _ range: Range<Int>) -> Int {
        range.first { i in i + pattern.count <= bytes.count && Array(bytes[i..<(i + pattern.count)]) == pattern }!
    }

    static let vorbis: [UInt8] = Array("vorbis".utf8)

    static let cases: [(String, [UInt8], String)] = [
        ("the identification page alone (59 bytes)", Array(whole[pages(whole)[0]]), "the file ends before the comment header"),
        ("cut inside the header page", Array(whole[..<(pages(whole)[1].lowerBound + 200)]), "the file ends before the comment header"),
        ("no beginning-of-stream flag", patched(page: 0) { b, p in b[p.lowerBound + 5] &= ~0x02 }, "the first page does not begin the stream"),
        ("0 channels", patched(page: 0) { b, p in b[find([1] + vorbis, in: b, p) + 11] = 0 }, "the identification header is malformed"),
        ("a gap in the page numbers", patched(page: 1) { b, p in b[p.lowerBound + 18] = 7 }, "a page of the comment header is missing"),
        ("a setup header's codebook without its sync pattern", patched(page: 1) { b, p in
            let setup = find([5] + vorbis, in: b, p)
            for i in 0..<3 { b[setup + 8 + i] = 0x58 }
        }, "the setup header is malformed"),
    ]

    @Test("Each fault is named in our words, before libsndfile reads the stream", arguments: cases.map(\.0))
    func refused(name: String) throws {
        let (_, bytes, says) = try #require(Self.cases.first { $0.0 == name })
        #expect(Self.pages(Self.whole).count >= 3, "the written file has its two header pages and audio")
        do {
            _ = try AudioStream(bytes: MemoryByteSource(bytes), name: "cut.ogg", outputRate: SampleRate(48_000)!, channels: 2)
            Issue.record("\(name): opened")
        } catch {
            #expect(error.message == "Ogg Vorbis: \(says)", "\(name)")
            #expect(error.path == "cut.ogg")
        }
        #expect(OggVorbisHeaders.problem { offset, count in Array(bytes.dropFirst(offset).prefix(count)) } == "Ogg Vorbis: \(says)")
    }

    @Test("A whole file opens and decodes; other containers are not looked at")
    func wholeOpens() throws {
        #expect(OggVorbisHeaders.problem { offset, count in Array(Self.whole.dropFirst(offset).prefix(count)) } == nil)
        let stream = try AudioStream(bytes: MemoryByteSource(Self.whole), name: "whole.ogg", outputRate: SampleRate(48_000)!, channels: 2)
        var block = [Float](repeating: 0, count: 4_800 * 2)
        let got = try block.withUnsafeMutableBufferPointer { try stream.read(into: $0, frames: 4_800) }
        #expect(got == 4_800)
        #expect(block.map(abs).max()! > 0.2, "the tone is decoded")
        let riff = Array("RIFF".utf8) + [UInt8](repeating: 0, count: 40)
        #expect(OggVorbisHeaders.problem { offset, count in Array(riff.dropFirst(offset).prefix(count)) } == nil)
    }
}
