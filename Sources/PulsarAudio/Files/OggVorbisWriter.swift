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
