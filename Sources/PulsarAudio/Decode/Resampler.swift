import CSoxr

/// A failure of the resampler, with libsoxr's reason.
public enum ResamplerError: Error, CustomStringConvertible, Sendable {
    /// Rates or channel count out of range.
    case invalidConfiguration(String)
    /// `soxr_create` failed.
    case creationFailed(String)
    /// `soxr_process` failed.
    case processFailed(String)

    public var description: String {
        switch self {
        case .invalidConfiguration(let s): return "resampler: \(s)"
        case .creationFailed(let s): return "resampler could not start: \(s)"
        case .processFailed(let s): return "resampling failed: \(s)"
        }
    }
}

/// A streaming sample-rate converter for interleaved float frames: libsoxr (the only file that
/// calls `soxr_*`) at `soxr_quality_spec(SOXR_HQ, 0)` — 20-bit precision, linear phase, passband
/// to about 91 % of the lower Nyquist frequency — in and out as `SOXR_FLOAT32_I`, single-threaded.
///
/// Feed blocks with `process`, then call `flush` after the last input until it returns 0. libsoxr
/// removes its own filter delay: output frame `k` lies at time `k / outputRate` of the input
/// timeline, so a fresh resampler started at input frame `s` produces frame `k` at time
/// `s / inputRate + k / outputRate`. `reset()` readies it for an unrelated signal (a seek).
///
/// When the rates are equal no libsoxr object exists and `process` copies frames exactly.
///
/// Thread rules: one thread at a time; not real-time safe (libsoxr allocates while starting up
/// and `reset` may allocate).
public final class Resampler {
    public let inputRate: Int
    public let outputRate: Int
    public let channels: Int
    private var soxr: soxr_t?
    private var flushed = false

    /// True when the rates are equal and frames are copied unchanged.
    public var isPassthrough: Bool { inputRate == outputRate }

    public init(inputRate: Int, outputRate: Int, channels: Int) throws(ResamplerError) {
        guard inputRate > 0, outputRate > 0 else {
            throw .invalidConfiguration("rates must be positive (got \(inputRate) → \(outputRate) Hz)")
        }
        guard (1...256).contains(channels) else {
            throw .invalidConfiguration("channel count \(channels) outside 1...256")
        }
        self.inputRate = inputRate
        self.outputRate = outputRate
        self.channels = channels
        if inputRate != outputRate {
            soxr = try Self.create(inputRate: inputRate, outputRate: outputRate, channels: channels)
        }
    }

    deinit {
        if let soxr { soxr_delete(soxr) }
    }

    private static func create(inputRate: Int, outputRate: Int, channels: Int) throws(ResamplerError) -> soxr_t {
        var io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I)
        var quality = soxr_quality_spec(UInt(SOXR_HQ), 0)
        var runtime = soxr_runtime_spec(1)
        var error: soxr_error_t?
        let created = soxr_create(Double(inputRate), Double(outputRate), UInt32(channels), &error, &io, &quality, &runtime)
        if let error {
            if let created { soxr_delete(created) }
            throw .creationFailed(String(cString: error))
        }
        guard let created else { throw .creationFailed("soxr_create returned nothing") }
        return created
    }

    /// Converts up to `inputFrames` frames of `input` into at most `outputCapacity` frames of
    /// `output` (both interleaved, `channels` samples per frame). Returns the frames consumed and
    /// produced; it may consume fewer than given when `output` fills — pass the rest again. The
    /// first calls produce less than the rate ratio suggests (the filter fills first).
    public func process(_ input: UnsafePointer<Float>, inputFrames: Int,
                        into output: UnsafeMutablePointer<Float>, outputCapacity: Int) throws(ResamplerError) -> (consumed: Int, produced: Int) {
        guard let soxr else {
            let n = min(inputFrames, outputCapacity)
            output.update(from: input, count: n * channels)
            return (n, n)
        }
        guard !flushed else { throw .processFailed("input after flush (reset first)") }
        var consumed = 0
        var produced = 0
        let error = soxr_process(soxr, input, inputFrames, &consumed, output, outputCapacity, &produced)
        if let error { throw .processFailed(String(cString: error)) }
        return (consumed, produced)
    }

    /// Signals the end of the input and drains what the filter still holds into `output`;
    /// returns the frames produced. Call until it returns 0. Passthrough holds nothing.
    public func flush(into output: UnsafeMutablePointer<Float>, outputCapacity: Int) throws(ResamplerError) -> Int {
        guard let soxr, outputCapacity > 0 else { return 0 }
        flushed = true
        var consumed = 0
        var produced = 0
        let error = soxr_process(soxr, nil, 0, &consumed, output, outputCapacity, &produced)
        if let error { throw .processFailed(String(cString: error)) }
        return produced
    }

    /// Forgets all input: the next `process` starts a fresh signal (filter history zero).
    public func reset() throws(ResamplerError) {
        flushed = false
        guard let old = soxr else { return }
        if soxr_clear(old) != nil {
            // Could not clear in place: recreate.
            soxr_delete(old)
            soxr = nil
            soxr = try Self.create(inputRate: inputRate, outputRate: outputRate, channels: channels)
        }
    }

    /// libsoxr's current delay in output frames (0 for passthrough).
    public var delay: Double {
        guard let soxr else { return 0 }
        return soxr_delay(soxr)
    }
}
