import CSndFile
import PulsarBundle

/// The one place that calls libsndfile (`sf_*`). Errors become `AudioFileError`.
///
/// Three modes: writing a WAV (`init(writing:sampleRate:channels:format:large:)`), writing any
/// encoding libsndfile has (`init(writing:sampleRate:channels:encoding:)`, for tests and tools),
/// and streaming reads of any format libsndfile reads from a `ByteSource`
/// (`init(reading:name:)`, through `sf_open_virtual`).
///
/// Thread rules: one instance is used by one thread at a time. Not real-time safe (file I/O).
final class SoundFile {
    private var handle: OpaquePointer?
    let path: String
    let channels: Int
    /// Reading mode: the file's rate, frame count (`SF_INFO.frames`, may be unknown: see
    /// `framesKnown`) and `SF_INFO.format` code. Zero when writing.
    private(set) var sampleRate: Int = 0
    private(set) var frames: Int64 = 0
    private(set) var formatCode: Int32 = 0
    /// Whether the file can seek (`SF_INFO.seekable`).
    private(set) var seekable: Bool = false
    /// The virtual-I/O bridge of reading mode, retained for as long as libsndfile may call it.
    private var virtualIO: Unmanaged<VirtualIOContext>?

    /// Creates `path` for writing a WAV file: plain RIFF WAV, or RF64 when `large` (the data
    /// will pass the 4 GiB a RIFF header can describe).
    init(writing path: String, sampleRate: Int, channels: Int, format: SampleFormat, large: Bool) throws(AudioFileError) {
        self.path = path
        self.channels = channels
        let subtype: Int32
        switch format {
        case .float: subtype = Int32(SF_FORMAT_FLOAT)
        case .s16: subtype = Int32(SF_FORMAT_PCM_16)
        case .s24: subtype = Int32(SF_FORMAT_PCM_24)
        }
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channels)
        info.format = Int32(large ? SF_FORMAT_RF64 : SF_FORMAT_WAV) | subtype
        guard sf_format_check(&info) != 0 else {
            throw AudioFileError(path: path, message: "libsndfile cannot write \(format.rawValue) WAV at \(sampleRate) Hz with \(channels) channels")
        }
        guard let h = sf_open(path, Int32(SFM_WRITE), &info) else {
            throw AudioFileError(path: path, message: String(cString: sf_strerror(nil)))
        }
        handle = h
        // Integer formats: clip instead of wrapping around (the renderer stays inside (-1, 1) anyway;
        // `WAVExporter` converts integer formats itself, through `SampleConversion`).
        sf_command(h, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
        // No PEAK chunk: it would need a second pass over the data.
        sf_command(h, Int32(SFC_SET_ADD_PEAK_CHUNK), nil, Int32(SF_FALSE))
    }

    /// Creates `path` for writing in `encoding` (any container libsndfile writes; for tests and
    /// tools). Opus accepts only 8, 12, 16, 24 and 48 kHz.
    init(writing path: String, sampleRate: Int, channels: Int, encoding: SoundFileEncoding) throws(AudioFileError) {
        self.path = path
        self.channels = channels
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channels)
        info.format = encoding.formatCode
        guard sf_format_check(&info) != 0 else {
            throw AudioFileError(path: path, message: "libsndfile cannot write \(encoding) at \(sampleRate) Hz with \(channels) channels")
        }
        guard let h = sf_open(path, Int32(SFM_WRITE), &info) else {
            throw AudioFileError(path: path, message: String(cString: sf_strerror(nil)))
        }
        handle = h
        sf_command(h, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
        if encoding.formatCode & Int32(SF_FORMAT_TYPEMASK) == Int32(SF_FORMAT_WAV) {
            sf_command(h, Int32(SFC_SET_ADD_PEAK_CHUNK), nil, Int32(SF_FALSE))
        }
        if case .oggVorbis(let quality) = encoding {
            var q = quality
            sf_command(h, Int32(SFC_SET_VBR_ENCODING_QUALITY), &q, Int32(MemoryLayout<Double>.size))
        }
    }

    /// Opens `source` for streaming reads of any format libsndfile reads (WAV, AIFF, FLAC, Ogg
    /// Vorbis, Opus, MP3, …), through `sf_open_virtual`: libsndfile asks for bytes as it needs
    /// them, so a file or a ZIP entry is never loaded whole. `name` labels errors.
    ///
    /// `source` is retained until the file is closed or released and used only by the thread
    /// using this instance.
    init(reading source: ByteSource, name: String) throws(AudioFileError) {
        self.path = name
        if let problem = OggVorbisHeaders.problem({ offset, count in Self.bytes(of: source, at: offset, count: count) }) {
            throw AudioFileError(path: name, message: problem)
        }
        let context = Unmanaged.passRetained(VirtualIOContext(source))
        var callbacks = SF_VIRTUAL_IO(get_filelen: virtualLength, seek: virtualSeek, read: virtualRead,
                                      write: virtualWrite, tell: virtualTell)
        var info = SF_INFO()
        // libsndfile copies `callbacks`; `context` must outlive the handle.
        let opened = DecoderMessages.capture(name) { () -> OpaquePointer? in sf_open_virtual(&callbacks, Int32(SFM_READ), &info, context.toOpaque()) }
        guard let h = opened else {
            let reason = context.takeUnretainedValue().failure.map { "\($0)" } ?? String(cString: sf_strerror(nil))
            context.release()
            throw AudioFileError(path: name, message: reason)
        }
        guard info.channels > 0, info.samplerate > 0 else {
            sf_close(h)
            context.release()
            throw AudioFileError(path: name, message: "no audio channels or no sample rate")
        }
        handle = h
        virtualIO = context
        channels = Int(info.channels)
        sampleRate = Int(info.samplerate)
        frames = Int64(info.frames)
        formatCode = info.format
        seekable = info.seekable != 0
    }

    /// Up to `count` bytes of `source` at `offset` (fewer at its end; none on a read error,
    /// which libsndfile's own reading then meets and reports).
    private static func bytes(of source: ByteSource, at offset: Int, count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let got = bytes.withUnsafeMutableBytes { (try? source.read(at: Int64(offset), into: $0)) ?? 0 }
        return Array(bytes.prefix(max(got, 0)))
    }

    /// Whether `frames` is a real count (libsndfile reports `SF_COUNT_MAX` or a negative value
    /// when a stream's length is unknown).
    var framesKnown: Bool { frames >= 0 && frames < Int64.max }

    /// Reading mode: decodes up to `count` frames as interleaved float (`channels` samples per
    /// frame, nominally within [-1, 1]) into `buffer`; returns the frames decoded, fewer than
    /// `count` only at the end of the file.
    func readFrames(into buffer: UnsafeMutablePointer<Float>, count: Int) throws(AudioFileError) -> Int {
        guard let handle else { throw AudioFileError(path: path, message: "read after close") }
        guard count > 0 else { return 0 }
        let got = DecoderMessages.capture(path) { () -> sf_count_t in sf_readf_float(handle, buffer, sf_count_t(count)) }
        if got < sf_count_t(count) {
            if let failure = virtualIO?.takeUnretainedValue().failure {
                throw AudioFileError(path: path, message: "read failed: \(failure)")
            }
            let status = sf_error(handle)
            if status != Int32(SF_ERR_NO_ERROR) {
                throw AudioFileError(path: path, message: "decode failed: \(String(cString: sf_strerror(handle)))")
            }
        }
        return max(0, Int(got))
    }

    /// Reading mode: moves so the next `readFrames` starts at `frame`.
    func seek(toFrame frame: Int64) throws(AudioFileError) {
        guard let handle else { throw AudioFileError(path: path, message: "seek after close") }
        let at = sf_seek(handle, sf_count_t(frame), SEEK_SET)
        guard at == sf_count_t(frame) else {
            let reason = virtualIO?.takeUnretainedValue().failure.map { "\($0)" } ?? String(cString: sf_strerror(handle))
            throw AudioFileError(path: path, message: "cannot seek to frame \(frame): \(reason)")
        }
    }

    /// Appends interleaved 16-bit frames (lossless encodings then read back exactly as
    /// `sample / 32768`).
    func write(int16 samples: UnsafeBufferPointer<Int16>) throws(AudioFileError) {
        guard let handle, let base = samples.baseAddress else { return }
        let frames = sf_count_t(samples.count / channels)
        let written = sf_writef_short(handle, base, frames)
        guard written == frames else {
            throw AudioFileError(path: path, message: "write failed: \(String(cString: sf_strerror(handle)))")
        }
    }

    /// Appends interleaved 32-bit frames (a 24-bit file keeps each sample's top 24 bits).
    func write(int32 samples: UnsafeBufferPointer<Int32>) throws(AudioFileError) {
        guard let handle, let base = samples.baseAddress else { return }
        let frames = sf_count_t(samples.count / channels)
        let written = sf_writef_int(handle, base, frames)
        guard written == frames else {
            throw AudioFileError(path: path, message: "write failed: \(String(cString: sf_strerror(handle)))")
        }
    }

    /// An RF64 file that stays under 4 GiB is written as a plain WAV (before any data).
    func downgradeSmallRF64() {
        guard let handle else { return }
        sf_command(handle, Int32(SFC_RF64_AUTO_DOWNGRADE), nil, Int32(SF_TRUE))
    }

    /// Appends interleaved frames.
    func write(_ samples: UnsafeBufferPointer<Float>) throws(AudioFileError) {
        guard let handle, let base = samples.baseAddress else { return }
        let frames = sf_count_t(samples.count / channels)
        let written = sf_writef_float(handle, base, frames)
        guard written == frames else {
            throw AudioFileError(path: path, message: "write failed: \(String(cString: sf_strerror(handle)))")
        }
    }

    /// Finishes the header and closes the file.
    func close() throws(AudioFileError) {
        guard let h = handle else { return }
        handle = nil
        let status = sf_close(h)
        virtualIO?.release()
        virtualIO = nil
        guard status == 0 else {
            throw AudioFileError(path: path, message: "close failed: \(String(cString: sf_error_number(status)))")
        }
    }

    deinit {
        if let handle { sf_close(handle) }
        virtualIO?.release()
    }

    /// Reads a whole file as interleaved float frames (for tests and tools; not for long audio).
    static func readAll(_ path: String) throws(AudioFileError) -> (samples: [Float], sampleRate: Int, channels: Int, format: Int32) {
        var info = SF_INFO()
        guard let h = sf_open(path, Int32(SFM_READ), &info) else {
            throw AudioFileError(path: path, message: String(cString: sf_strerror(nil)))
        }
        defer { sf_close(h) }
        let total = Int(info.frames) * Int(info.channels)
        var samples = [Float](repeating: 0, count: total)
        let read = samples.withUnsafeMutableBufferPointer { sf_readf_float(h, $0.baseAddress, info.frames) }
        guard read == info.frames else {
            throw AudioFileError(path: path, message: "short read: \(read) of \(info.frames) frames")
        }
        return (samples, Int(info.samplerate), Int(info.channels), info.format)
    }
}

extension SoundFile {
    /// libsndfile's names for the container (major format) and the encoding (subtype) of a
    /// `SF_INFO.format` code, from `SFC_GET_FORMAT_INFO`; a hex code when libsndfile has no name.
    static func formatNames(_ code: Int32) -> (container: String, encoding: String) {
        func name(_ part: Int32) -> String? {
            var info = SF_FORMAT_INFO()
            info.format = part
            let status = sf_command(nil, Int32(SFC_GET_FORMAT_INFO), &info, Int32(MemoryLayout<SF_FORMAT_INFO>.size))
            guard status == 0, let text = info.name else { return nil }
            return String(cString: text)
        }
        let major = code & Int32(SF_FORMAT_TYPEMASK)
        let minor = code & Int32(SF_FORMAT_SUBMASK)
        return (name(major) ?? "format 0x" + String(major, radix: 16),
                name(minor) ?? "encoding 0x" + String(minor, radix: 16))
    }

    /// Whether libsndfile's seek in this format lands on exactly the samples a continuous read
    /// gives: uncompressed PCM/float/G.711 in any container, and FLAC. Not assumed for lossy
    /// codecs (libsndfile 1.2.0's Vorbis seek leaves up to one block wrong).
    static func seeksExactly(formatCode code: Int32) -> Bool {
        switch code & Int32(SF_FORMAT_SUBMASK) {
        case Int32(SF_FORMAT_PCM_S8), Int32(SF_FORMAT_PCM_U8), Int32(SF_FORMAT_PCM_16), Int32(SF_FORMAT_PCM_24),
             Int32(SF_FORMAT_PCM_32), Int32(SF_FORMAT_FLOAT), Int32(SF_FORMAT_DOUBLE), Int32(SF_FORMAT_ULAW),
             Int32(SF_FORMAT_ALAW):
            return true
        default:
            return false
        }
    }

    /// Source frames at the end of a file that libsndfile's own seek must not target. libsndfile
    /// 1.2.0 seeks into the last Ogg page of a Vorbis stream late by a fraction of a block (192
    /// frames measured), while decoding on from any earlier page is exact. One Ogg page holds at
    /// most 255 packets of at most 4096 frames (half the largest Vorbis block), so starting this
    /// far from the end is before the last page. 0 for other encodings.
    static func seekTailGuard(formatCode code: Int32) -> Int64 {
        code & Int32(SF_FORMAT_SUBMASK) == Int32(SF_FORMAT_VORBIS) ? 255 * 4096 : 0
    }

    /// The version string of the libsndfile in use.
    static var libraryVersion: String { String(cString: sf_version_string()) }
}

/// Encodings `SoundFile(writing:sampleRate:channels:encoding:)` can write.
enum SoundFileEncoding: Sendable, CustomStringConvertible {
    case wavFloat
    case wavPCM16
    case flacPCM16
    case flacPCM24
    /// Ogg Vorbis at a VBR quality in 0...1 (libsndfile's `SFC_SET_VBR_ENCODING_QUALITY`).
    case oggVorbis(quality: Double)
    /// Ogg Opus (libsndfile's default bit rate).
    case oggOpus
    case aiffPCM16
    /// MPEG-1 Layer III (needs libsndfile built with LAME).
    case mp3

    var formatCode: Int32 {
        switch self {
        case .wavFloat: return Int32(SF_FORMAT_WAV) | Int32(SF_FORMAT_FLOAT)
        case .wavPCM16: return Int32(SF_FORMAT_WAV) | Int32(SF_FORMAT_PCM_16)
        case .flacPCM16: return Int32(SF_FORMAT_FLAC) | Int32(SF_FORMAT_PCM_16)
        case .flacPCM24: return Int32(SF_FORMAT_FLAC) | Int32(SF_FORMAT_PCM_24)
        case .oggVorbis: return Int32(SF_FORMAT_OGG) | Int32(SF_FORMAT_VORBIS)
        case .oggOpus: return Int32(SF_FORMAT_OGG) | Int32(SF_FORMAT_OPUS)
        case .aiffPCM16: return Int32(SF_FORMAT_AIFF) | Int32(SF_FORMAT_PCM_16)
        case .mp3: return Int32(SF_FORMAT_MPEG) | Int32(SF_FORMAT_MPEG_LAYER_III)
        }
    }

    var description: String {
        switch self {
        case .wavFloat: return "float WAV"
        case .wavPCM16: return "16-bit WAV"
        case .flacPCM16: return "16-bit FLAC"
        case .flacPCM24: return "24-bit FLAC"
        case .oggVorbis(let q): return "Ogg Vorbis (quality \(q))"
        case .oggOpus: return "Ogg Opus"
        case .aiffPCM16: return "16-bit AIFF"
        case .mp3: return "MP3"
        }
    }
}

/// The state behind libsndfile's virtual I/O callbacks: a `ByteSource`, the read position, a
/// small read-ahead window (so libsndfile's many small reads become few source reads — a ZIP
/// entry's reads can be costly), and the first source error, which `SoundFile` reports.
final class VirtualIOContext {
    let source: ByteSource
    let size: Int64
    var position: Int64 = 0
    var failure: (any Error)?
    /// Read-ahead window: `window[0..<windowCount]` holds the bytes at `windowStart...`.
    private let window: UnsafeMutableRawBufferPointer
    private var windowStart: Int64 = 0
    private var windowCount = 0
    static let windowBytes = 32 * 1024

    init(_ source: ByteSource) {
        self.source = source
        self.size = max(0, source.size)
        window = .allocate(byteCount: Self.windowBytes, alignment: 16)
    }

    deinit { window.deallocate() }

    /// Copies up to `count` bytes at `position` into `destination`; advances; 0 at the end or on
    /// a source error (kept in `failure`).
    func read(into destination: UnsafeMutableRawPointer, count: Int) -> Int {
        var done = 0
        while done < count, position < size {
            let inWindow = position >= windowStart && position < windowStart + Int64(windowCount)
            if inWindow {
                let offset = Int(position - windowStart)
                let n = min(count - done, windowCount - offset)
                (destination + done).copyMemory(from: window.baseAddress! + offset, byteCount: n)
                done += n
                position += Int64(n)
            } else if count - done >= Self.windowBytes {
                // Large request: straight from the source.
                let n: Int
                do {
                    n = try source.read(at: position, into: UnsafeMutableRawBufferPointer(start: destination + done, count: count - done))
                } catch {
                    failure = failure ?? error
                    return done
                }
                if n <= 0 { break }
                done += n
                position += Int64(n)
            } else {
                do {
                    windowCount = try source.read(at: position, into: window)
                } catch {
                    failure = failure ?? error
                    windowCount = 0
                    return done
                }
                windowStart = position
                if windowCount <= 0 { windowCount = 0; break }
            }
        }
        return done
    }
}

private func virtualContext(_ user: UnsafeMutableRawPointer?) -> VirtualIOContext {
    Unmanaged<VirtualIOContext>.fromOpaque(user!).takeUnretainedValue()
}

private let virtualLength: sf_vio_get_filelen = { user in
    virtualContext(user).size
}

private let virtualSeek: sf_vio_seek = { offset, whence, user in
    let context = virtualContext(user)
    let base: Int64
    switch whence {
    case SEEK_SET: base = 0
    case SEEK_CUR: base = context.position
    case SEEK_END: base = context.size
    default: return -1
    }
    let (target, overflow) = base.addingReportingOverflow(offset)
    guard !overflow, target >= 0 else { return -1 }
    context.position = target
    return target
}

private let virtualRead: sf_vio_read = { pointer, count, user in
    guard let pointer, count > 0 else { return 0 }
    return sf_count_t(virtualContext(user).read(into: pointer, count: Int(count)))
}

private let virtualWrite: sf_vio_write = { _, _, _ in 0 }

private let virtualTell: sf_vio_tell = { user in
    virtualContext(user).position
}
