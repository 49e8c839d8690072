#if canImport(Glibc)
import Glibc
#endif
import CVorbis
import PulsarCore

/// An Ogg Vorbis file written through libvorbisenc and libogg — the only file that calls
/// `vorbis_*` and `ogg_*`. libsndfile writes Ogg Vorbis too, but only its fixed set of tags;
/// Android's haptic-coupled audio needs the comment `ANDROID_HAPTIC=N` (the last N channels
/// vibrate), so the comments here are free.
///
/// It writes `path` as it goes, like `SoundFile`: `WAVExporter` gives it a temporary file and
/// puts it in place or removes it. Its errors are the output's. Thread rules: one thread at a
/// time; allocates.
final class OggVorbisWriter {
    let path: String
    let channels: Int
    private var file: UnsafeMutablePointer<FILE>?
    private var info = vorbis_info()
    private var comment = vorbis_comment()
    private var dsp = vorbis_dsp_state()
    private var block = vorbis_block()
    private var stream = ogg_stream_state()
    /// True once the encoder's state exists: `deinit` frees it.
    private var encoding = false

    /// Opens the encoder: `channels` (1…8) at `sampleRate`, VBR `quality` (−0.1…1), and
    /// `comments` as `TAG=value` lines after the encoder's own; writes the three headers.
    init(writing path: String, sampleRate: SampleRate, channels: Int, quality: Float = 0.6,
         comments: [(tag: String, value: String)]) throws(AudioFileError) {
        self.path = path
        self.channels = channels
        guard (1...8).contains(channels) else {
            throw AudioFileError(path: path, message: "an Ogg Vorbis file here takes 1 to 8 channels, not \(channels)", side: .output)
        }
        vorbis_info_init(&info)
        guard vorbis_encode_init_vbr(&info, channels, sampleRate.hertz, quality) == 0 else {
            vorbis_info_clear(&info)
            throw AudioFileError(path: path, message: "the Vorbis encoder refuses \(channels) channels at \(sampleRate.hertz) Hz", side: .output)
        }
        vorbis_comment_init(&comment)
        vorbis_comment_add_tag(&comment, "ENCODER", "pulsar")
        for c in comments { vorbis_comment_add_tag(&comment, c.tag, c.value) }
        vorbis_analysis_init(&dsp, &info)
        vorbis_block_init(&dsp, &block)
        ogg_stream_init(&stream, 0x5055_4C53)
        encoding = true
        guard let opened = fopen(path, "wb") else { throw failure() }
        file = opened
        var identification = ogg_packet(), commentPacket = ogg_packet(), codebooks = ogg_packet()
        vorbis_analysis_headerout(&dsp, &comment, &identification, &commentPacket, &codebooks)
        ogg_stream_packetin(&stream, &identification)
        ogg_stream_packetin(&stream, &commentPacket)
        ogg_stream_packetin(&stream, &codebooks)
        try flushPages(force: true)
    }

    deinit {
        if let file { fclose(file) }
        guard encoding else { return }
        ogg_stream_clear(&stream)
        vorbis_block_clear(&block)
        vorbis_dsp_clear(&dsp)
        vorbis_comment_clear(&comment)
        vorbis_info_clear(&info)
    }

    /// Encodes whole interleaved frames of `channels` samples (a non-finite one as 0).
    func write(_ interleaved: UnsafeBufferPointer<Float>) throws(AudioFileError) {
        let frames = interleaved.count / channels
        guard frames > 0, let planes = vorbis_analysis_buffer(&dsp, Int32(frames)) else { return }
        for c in 0..<channels {
            let plane = planes[c]!
            for i in 0..<frames {
                let x = interleaved[i * channels + c]
                plane[i] = x.isFinite ? x : 0
            }
        }
        vorbis_analysis_wrote(&dsp, Int32(frames))
        try drain()
    }

    /// Ends the stream and writes its last pages; the file is complete once this returns.
    func close() throws(AudioFileError) {
        guard let open = file else { return }
        vorbis_analysis_wrote(&dsp, 0)
        try drain()
        try flushPages(force: true)
        file = nil
        guard fclose(open) == 0 else { throw failure() }
    }

    /// Takes every block the encoder has ready into packets, and full pages to the file.
    private func drain() throws(AudioFileError) {
        var packet = ogg_packet()
        while vorbis_analysis_blockout(&dsp, &block) == 1 {
            vorbis_analysis(&block, nil)
            vorbis_bitrate_addblock(&block)
            while vorbis_bitrate_flushpacket(&dsp, &packet) == 1 {
                ogg_stream_packetin(&stream, &packet)
                try flushPages(force: false)
            }
        }
    }

    /// Writes the pages the stream holds: complete ones, or (`force`) everything it has.
    private func flushPages(force: Bool) throws(AudioFileError) {
        var page = ogg_page()
        while (force ? ogg_stream_flush(&stream, &page) : ogg_stream_pageout(&stream, &page)) != 0 {
            guard fwrite(page.header, 1, page.header_len, file) == page.header_len,
                  fwrite(page.body, 1, page.body_len, file) == page.body_len else { throw failure() }
        }
    }

    private func failure() -> AudioFileError {
        AudioFileError(path: path, message: "cannot write: \(String(cString: strerror(errno)))", side: .output)
    }
}

/// The comments of an Ogg Vorbis stream, read from its first bytes through libogg and
/// libvorbis (its identification and comment headers; nothing is decoded), and what Android
/// reads from them. Plain functions; any thread.
public enum OggVorbisComments {
    /// Bytes from the start of a file that hold its first two headers (a comment header is a
    /// few hundred bytes; the setup header after it is not needed).
    public static let headerBytes = 65_536

    /// The `TAG=value` comments and the channel count of an Ogg Vorbis stream starting in
    /// `bytes`, or nil when they do not hold an Ogg Vorbis stream's first two headers.
    public static func read(_ bytes: [UInt8]) -> (channels: Int, comments: [String])? {
        guard bytes.count >= 4, bytes[0] == 0x4F, bytes[1] == 0x67, bytes[2] == 0x67, bytes[3] == 0x53 else { return nil }  // "OggS"
        var sync = ogg_sync_state()
        ogg_sync_init(&sync)
        defer { ogg_sync_clear(&sync) }
        let count = min(bytes.count, headerBytes)
        guard let buffer = ogg_sync_buffer(&sync, count) else { return nil }
        bytes.withUnsafeBufferPointer { buffer.update(from: UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), count: count) }
        guard ogg_sync_wrote(&sync, count) == 0 else { return nil }
        var info = vorbis_info(), comment = vorbis_comment(), stream = ogg_stream_state()
        vorbis_info_init(&info)
        vorbis_comment_init(&comment)
        var streaming = false
        defer {
            vorbis_comment_clear(&comment)
            vorbis_info_clear(&info)
            if streaming { ogg_stream_clear(&stream) }
        }
        var page = ogg_page(), packet = ogg_packet(), headers = 0
        while headers < 2, ogg_sync_pageout(&sync, &page) == 1 {
            if !streaming {
                guard ogg_stream_init(&stream, ogg_page_serialno(&page)) == 0 else { return nil }
                streaming = true
            }
            guard ogg_stream_pagein(&stream, &page) == 0 else { return nil }
            while headers < 2, ogg_stream_packetout(&stream, &packet) == 1 {
                guard vorbis_synthesis_headerin(&info, &comment, &packet) == 0 else { return nil }
                headers += 1
            }
        }
        guard headers == 2 else { return nil }
        var comments: [String] = []
        for i in 0..<Int(max(comment.comments, 0)) {
            guard let text = comment.user_comments?[i] else { continue }
            let length = Int(comment.comment_lengths?[i] ?? 0)
            comments.append(String(decoding: UnsafeRawBufferPointer(start: text, count: max(length, 0)), as: UTF8.self))
        }
        return (Int(info.channels), comments)
    }

    /// Android's haptic channels of a stream with `channels` channels and `comments`: the N of
    /// `ANDROID_HAPTIC=N` (tag case-insensitive) when it is 1 or 2 and leaves a channel of audio;
    /// nil otherwise (Android ignores such a file's tag as well).
    public static func androidHapticChannels(channels: Int, comments: [String]) -> Int? {
        for c in comments {
            let parts = c.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].uppercased() == "ANDROID_HAPTIC", let n = Int(parts[1]) else { continue }
            return (1...2).contains(n) && n < channels ? n : nil
        }
        return nil
    }

    /// Why the `ANDROID_HAPTIC` comments of a stream with `channels` channels are not read as
    /// they are written, in one sentence, or nil: a value that is not 1 or 2 (`999`, `0`, `x`,
    /// ` 1`), one that leaves no channel of audio, and a second comment (the first is read).
    public static func androidHapticWarning(channels: Int, comments: [String]) -> String? {
        let values = comments.compactMap { c -> String? in
            let parts = c.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return parts.count == 2 && parts[0].uppercased() == "ANDROID_HAPTIC" ? String(parts[1]) : nil
        }
        guard let first = values.first else { return nil }
        var why: [String] = []
        let shown = "ANDROID_HAPTIC=\(MessageText.excerpt(first, limit: 40))"
        if let n = Int(first), (1...2).contains(n) {
            if n >= channels { why.append("\(shown) leaves no channel of audio in \(channels) channel(s): no haptic channel is read") }
        } else {
            why.append("\(shown) is not 1 or 2: no haptic channel is read")
        }
        if values.count > 1 { why.append("\(values.count) ANDROID_HAPTIC comments: the first is read") }
        return why.isEmpty ? nil : why.joined(separator: "; ")
    }

    /// `androidHapticChannels` of the Ogg Vorbis stream starting in `bytes` (nil for anything else).
    public static func androidHapticChannels(_ bytes: [UInt8]) -> Int? {
        read(bytes).flatMap { androidHapticChannels(channels: $0.channels, comments: $0.comments) }
    }
}

/// Whether an Ogg Vorbis stream's three headers are whole, checked before libsndfile opens it.
/// libsndfile 1.2.0 leaks its `vorbis_info` (5 784 bytes) each time it refuses a stream while
/// reading those headers, so a process that is handed many malformed files (a game's mods, a
/// server) would grow without bound; such a stream is refused here first, in words of its own.
enum OggVorbisHeaders {
    /// Bytes read from the source at a time, and the most read before the check gives up and
    /// leaves the stream to libsndfile (a real setup header is a few kilobytes).
    static let chunkBytes = 65_536
    static let limitBytes = 4 << 20

    /// Why the Ogg Vorbis stream `read` returns (`read(offset, count)`: the bytes there, fewer at
    /// the end) is not whole up to its setup header, or nil: it is, or it is not an Ogg Vorbis
    /// stream at all (another container or codec is left to libsndfile's own reading).
    static func problem(_ read: (_ offset: Int, _ count: Int) -> [UInt8]) -> String? {
        var sync = ogg_sync_state()
        ogg_sync_init(&sync)
        defer { ogg_sync_clear(&sync) }
        var offset = 0
        /// The next page, feeding the sync layer as it needs; nil at the end or past the limit.
        func nextPage(_ page: inout ogg_page) -> Bool? {
            while true {
                let got = ogg_sync_pageout(&sync, &page)
                if got == 1 { return true }
                if got < 0 { continue }  // bytes skipped to the next capture pattern
                guard offset < limitBytes else { return nil }
                let bytes = read(offset, chunkBytes)
                guard !bytes.isEmpty, let buffer = ogg_sync_buffer(&sync, bytes.count) else { return false }
                bytes.withUnsafeBufferPointer { buffer.update(from: UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), count: bytes.count) }
                ogg_sync_wrote(&sync, bytes.count)
                offset += bytes.count
            }
        }
        let head = read(0, 4)
        guard head == [0x4F, 0x67, 0x67, 0x53] else { return nil }  // "OggS"
        var page = ogg_page(), packet = ogg_packet(), stream = ogg_stream_state()
        guard nextPage(&page) == true else { return nil }
        guard ogg_stream_init(&stream, ogg_page_serialno(&page)) == 0 else { return nil }
        defer { ogg_stream_clear(&stream) }
        guard ogg_stream_pagein(&stream, &page) == 0, ogg_stream_packetout(&stream, &packet) == 1,
              isVorbisIdentification(packet) else { return nil }
        var info = vorbis_info(), comment = vorbis_comment()
        vorbis_info_init(&info)
        vorbis_comment_init(&comment)
        defer { vorbis_comment_clear(&comment); vorbis_info_clear(&info) }
        guard ogg_page_bos(&page) != 0 else { return "Ogg Vorbis: the first page does not begin the stream" }
        guard ogg_stream_packetpeek(&stream, nil) == 0 else { return "Ogg Vorbis: the first page holds more than the identification header" }
        guard vorbis_synthesis_headerin(&info, &comment, &packet) == 0 else { return "Ogg Vorbis: the identification header is malformed" }
        for name in ["comment", "setup"] {
            while true {
                let got = ogg_stream_packetout(&stream, &packet)
                if got < 0 { return "Ogg Vorbis: a page of the \(name) header is missing" }
                if got == 1 { break }
                switch nextPage(&page) {
                case nil: return nil
                case false?: return "Ogg Vorbis: the file ends before the \(name) header"
                case true?: _ = ogg_stream_pagein(&stream, &page)  // another stream's pages are refused by serial
                }
            }
            guard vorbis_synthesis_headerin(&info, &comment, &packet) == 0 else { return "Ogg Vorbis: the \(name) header is malformed" }
        }
        return nil
    }

    /// Whether `packet` begins as a Vorbis identification header (type 1, "vorbis").
    private static func isVorbisIdentification(_ packet: ogg_packet) -> Bool {
        guard packet.bytes >= 7, let p = packet.packet else { return false }
        return p[0] == 1 && p[1] == 0x76 && p[2] == 0x6F && p[3] == 0x72 && p[4] == 0x62 && p[5] == 0x69 && p[6] == 0x73
    }
}
