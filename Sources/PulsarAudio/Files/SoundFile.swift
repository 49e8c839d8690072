import CSndFile

/// The one place that calls libsndfile (`sf_*`). Errors become `AudioFileError`.
///
/// Thread rules: one instance is used by one thread at a time. Not real-time safe (file I/O).
final class SoundFile {
    private var handle: OpaquePointer?
    let path: String
    let channels: Int

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
        // Integer formats: clip instead of wrapping around (the renderer stays inside (-1, 1) anyway).
        sf_command(h, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
        // No PEAK chunk: it would need a second pass over the data.
        sf_command(h, Int32(SFC_SET_ADD_PEAK_CHUNK), nil, Int32(SF_FALSE))
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
        guard status == 0 else {
            throw AudioFileError(path: path, message: "close failed: \(String(cString: sf_error_number(status)))")
        }
    }

    deinit {
        if let handle { sf_close(handle) }
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
