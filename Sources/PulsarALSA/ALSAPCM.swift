import CAlsa
import PulsarCore
import PulsarEngine

#if canImport(Glibc)
import Glibc
#endif

/// The sample format a PCM was set up with. `ALSADevice` converts from `Float` for the integer
/// formats.
enum ALSASampleFormat: Sendable {
    case float32
    case int32
    case int16

    var bytesPerSample: Int {
        switch self {
        case .float32, .int32: return 4
        case .int16: return 2
        }
    }

    var name: String {
        switch self {
        case .float32: return "FLOAT_LE"
        case .int32: return "S32_LE"
        case .int16: return "S16_LE"
        }
    }
}

/// What `ALSAPCM.configure` negotiated.
struct ALSAHardwareSetup: Sendable {
    var format: ALSASampleFormat
    var rate: Int
    var channels: Int
    var periodFrames: Int
    var bufferFrames: Int
    var canPause: Bool
}

/// One status reading taken in a single `snd_pcm_status` call.
struct ALSAStatus {
    var state: snd_pcm_state_t
    /// Frames between the application pointer and what is heard now (may be negative in xrun).
    var delay: Int
    var avail: Int
    /// The reading's timestamp (`htstamp`); zero until the stream has started on some plugins.
    var timestamp: timespec
}

/// A thin wrapper over one ALSA PCM handle (playback, or capture for `ALSACapture`), opened non-blocking: the only place in
/// the module that calls `snd_*`. Failures become `DeviceError`s naming the device: a failed
/// open or setup → `.unsupported`; then `-EPIPE` → `.underrun`, `-ESTRPIPE` → `.suspended`,
/// `-EINVAL` → `.unsupported`, anything else (`-ENODEV`, `-EBADFD`, `-EIO`, `-ENOTTY`,
/// `-ESHUTDOWN`, …) → `.disconnected`. `-EAGAIN` from a write is 0 frames taken.
///
/// Thread rules: not thread-safe. `open`, `configure`, `setStartThreshold`, `close` and
/// `ALSAPCM.deviceNames` run on a control thread and allocate; after that, one thread at a time
/// calls the transfer and state calls (`writeInterleaved`, `avail`, `status`, `pause`, `rewind`,
/// `rewindable`, `forward`, `drop`, `prepare`, `start`, `resume`, `state`), which allocate
/// nothing except on the way to throwing an error.
final class ALSAPCM {
    let name: String
    private var handle: OpaquePointer?
    private let statusRecord: OpaquePointer
    private let swParams: OpaquePointer
    private(set) var boundary = 0

    /// Opens PCM `name` (for playback, or capture) in non-blocking mode.
    init(name: String, capture: Bool = false) throws(DeviceError) {
        self.name = name
        var pcm: OpaquePointer?
        let mark = ALSAErrorLog.shared.recordedCount
        let result = snd_pcm_open(&pcm, name, capture ? SND_PCM_STREAM_CAPTURE : SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK)
        guard result >= 0, let pcm else {
            var why = Self.text(of: result)
            if let detail = ALSAErrorLog.shared.latestMessage(after: mark) {
                why += " (\(detail.message))"
            }
            throw .unsupported("cannot open ALSA device '\(name)': \(why)")
        }
        var status: OpaquePointer?
        var sw: OpaquePointer?
        guard snd_pcm_status_malloc(&status) == 0, let status, snd_pcm_sw_params_malloc(&sw) == 0, let sw else {
            snd_pcm_close(pcm)
            throw .unsupported("cannot open ALSA device '\(name)': out of memory")
        }
        handle = pcm
        statusRecord = status
        swParams = sw
    }

    deinit {
        close()
        snd_pcm_status_free(statusRecord)
        snd_pcm_sw_params_free(swParams)
    }

    func close() {
        if let handle {
            snd_pcm_close(handle)
        }
        handle = nil
    }

    private var pcm: OpaquePointer {
        get throws(DeviceError) {
            guard let handle else { throw .badState("ALSA device '\(name)' is closed") }
            return handle
        }
    }

    /// The PCM's poll descriptors, allocated and filled here (control thread); nil when it has
    /// none or they cannot be read. The caller deallocates them.
    func pollDescriptors() -> UnsafeMutableBufferPointer<pollfd>? {
        guard let handle else { return nil }
        let count = Int(snd_pcm_poll_descriptors_count(handle))
        guard count > 0, count <= 15 else { return nil }
        let fds = UnsafeMutableBufferPointer<pollfd>.allocate(capacity: count)
        fds.initialize(repeating: pollfd())
        guard snd_pcm_poll_descriptors(handle, fds.baseAddress, UInt32(count)) == Int32(count) else {
            fds.deallocate()
            return nil
        }
        return fds
    }

    /// Whether `fds` (this PCM's descriptors after a poll) say the PCM wants data or has an error,
    /// as ALSA demangles its plugins' events. Real-time safe.
    func wantsData(_ fds: UnsafeMutableBufferPointer<pollfd>) -> Bool {
        guard let handle else { return true }
        var revents: UInt16 = 0
        guard snd_pcm_poll_descriptors_revents(handle, fds.baseAddress, UInt32(fds.count), &revents) >= 0 else { return true }
        return revents & UInt16(POLLOUT | POLLERR | POLLHUP | POLLNVAL) != 0
    }

    // MARK: - Setup (control thread)

    /// Sets hardware parameters (interleaved access; FLOAT_LE, else S32_LE, else S16_LE; exactly
    /// `rate`, resampling allowed; exactly `channels`; period and buffer near the requests), then
    /// software parameters (monotonic timestamps, `avail_min` one period, start at one period
    /// queued, stop on underrun).
    func configure(rate: Int, channels: Int, periodFrames: Int, bufferFrames: Int) throws(DeviceError) -> ALSAHardwareSetup {
        let pcm = try pcm
        var hwOptional: OpaquePointer?
        guard snd_pcm_hw_params_malloc(&hwOptional) == 0, let hw = hwOptional else {
            throw .unsupported("ALSA device '\(name)': out of memory")
        }
        defer { snd_pcm_hw_params_free(hw) }
        try check(snd_pcm_hw_params_any(pcm, hw), "read its hardware parameters")
        try check(snd_pcm_hw_params_set_access(pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED), "take interleaved writes")
        _ = snd_pcm_hw_params_set_rate_resample(pcm, hw, 1)

        let candidates: [(ALSASampleFormat, snd_pcm_format_t)] = [
            (.float32, SND_PCM_FORMAT_FLOAT_LE), (.int32, SND_PCM_FORMAT_S32_LE), (.int16, SND_PCM_FORMAT_S16_LE),
        ]
        guard let (format, alsaFormat) = candidates.first(where: { snd_pcm_hw_params_test_format(pcm, hw, $0.1) == 0 }) else {
            throw .unsupported("device '\(name)' takes none of FLOAT_LE, S32_LE, S16_LE")
        }
        try check(snd_pcm_hw_params_set_format(pcm, hw, alsaFormat), "take \(format.name)")

        if snd_pcm_hw_params_test_channels(pcm, hw, UInt32(channels)) != 0 {
            var low: UInt32 = 0
            var high: UInt32 = 0
            snd_pcm_hw_params_get_channels_min(hw, &low)
            snd_pcm_hw_params_get_channels_max(hw, &high)
            let range = low == high ? "\(low)" : "\(low)…\(high)"
            throw .unsupported("device '\(name)' cannot take \(channels) channels (it takes \(range))")
        }
        try check(snd_pcm_hw_params_set_channels(pcm, hw, UInt32(channels)), "take \(channels) channels")

        if snd_pcm_hw_params_test_rate(pcm, hw, UInt32(rate), 0) != 0 {
            var low: UInt32 = 0
            var high: UInt32 = 0
            var dir: Int32 = 0
            snd_pcm_hw_params_get_rate_min(hw, &low, &dir)
            snd_pcm_hw_params_get_rate_max(hw, &high, &dir)
            throw .unsupported("device '\(name)' cannot run at \(rate) Hz (it takes \(low)…\(high) Hz)")
        }
        try check(snd_pcm_hw_params_set_rate(pcm, hw, UInt32(rate), 0), "run at \(rate) Hz")

        var buffer = snd_pcm_uframes_t(max(bufferFrames, 1))
        try check(snd_pcm_hw_params_set_buffer_size_near(pcm, hw, &buffer), "take a buffer near \(bufferFrames) frames")
        var period = snd_pcm_uframes_t(max(periodFrames, 1))
        var dir: Int32 = 0
        try check(snd_pcm_hw_params_set_period_size_near(pcm, hw, &period, &dir), "take a period near \(periodFrames) frames")
        try check(snd_pcm_hw_params(pcm, hw), "install its hardware parameters")

        snd_pcm_hw_params_get_period_size(hw, &period, &dir)
        snd_pcm_hw_params_get_buffer_size(hw, &buffer)
        let setup = ALSAHardwareSetup(format: format, rate: rate, channels: channels, periodFrames: Int(period),
                                      bufferFrames: Int(buffer), canPause: snd_pcm_hw_params_can_pause(hw) == 1)

        try check(snd_pcm_sw_params_current(pcm, swParams), "read its software parameters")
        try check(snd_pcm_sw_params_set_tstamp_mode(pcm, swParams, SND_PCM_TSTAMP_ENABLE), "enable timestamps")
        try check(snd_pcm_sw_params_set_tstamp_type(pcm, swParams, SND_PCM_TSTAMP_TYPE_MONOTONIC), "take monotonic timestamps")
        try check(snd_pcm_sw_params_set_avail_min(pcm, swParams, period), "set avail_min")
        try check(snd_pcm_sw_params_set_start_threshold(pcm, swParams, period), "set the start threshold")
        try check(snd_pcm_sw_params_set_stop_threshold(pcm, swParams, buffer), "set the stop threshold")
        try check(snd_pcm_sw_params(pcm, swParams), "install its software parameters")
        var boundaryFrames: snd_pcm_uframes_t = 0
        snd_pcm_sw_params_get_boundary(swParams, &boundaryFrames)
        boundary = Int(boundaryFrames)
        return setup
    }

    /// Changes when a prepared stream starts by itself: after `frames` are queued (`boundary`:
    /// never; `start()` then starts it). Allowed in the prepared state.
    func setStartThreshold(_ frames: Int) throws(DeviceError) {
        let pcm = try pcm
        try check(snd_pcm_sw_params_set_start_threshold(pcm, swParams, snd_pcm_uframes_t(frames)), "set the start threshold")
        try check(snd_pcm_sw_params(pcm, swParams), "install its software parameters")
    }

    // MARK: - Transfer and state (the driving thread)

    /// Writes up to `frames` interleaved frames from `bytes`; 0 when the buffer is full.
    func writeInterleaved(_ bytes: UnsafeRawPointer, frames: Int) throws(DeviceError) -> Int {
        let result = snd_pcm_writei(try pcm, bytes, snd_pcm_uframes_t(frames))
        if result == -Int(EAGAIN) { return 0 }
        if result < 0 { throw error(Int32(result), "write") }
        return result
    }

    /// Reads up to `frames` interleaved frames into `bytes` (capture); 0 when none are ready.
    func readInterleaved(_ bytes: UnsafeMutableRawPointer, frames: Int) throws(DeviceError) -> Int {
        let result = snd_pcm_readi(try pcm, bytes, snd_pcm_uframes_t(frames))
        if result == -Int(EAGAIN) { return 0 }
        if result < 0 { throw error(Int32(result), "read") }
        return result
    }

    /// Frames that can be written now (synchronised with the hardware pointer).
    func avail() throws(DeviceError) -> Int {
        let result = snd_pcm_avail(try pcm)
        if result < 0 { throw error(Int32(result), "report available frames") }
        return result
    }

    /// One consistent reading of state, delay, avail and timestamp.
    func status() throws(DeviceError) -> ALSAStatus {
        let pcm = try pcm
        let result = snd_pcm_status(pcm, statusRecord)
        if result < 0 { throw error(result, "report its status") }
        var stamp = timespec()
        snd_pcm_status_get_htstamp(statusRecord, &stamp)
        return ALSAStatus(state: snd_pcm_status_get_state(statusRecord), delay: snd_pcm_status_get_delay(statusRecord),
                          avail: Int(snd_pcm_status_get_avail(statusRecord)), timestamp: stamp)
    }

    var state: snd_pcm_state_t {
        guard let handle else { return SND_PCM_STATE_DISCONNECTED }
        return snd_pcm_state(handle)
    }

    func pause(_ paused: Bool) throws(DeviceError) {
        try check(snd_pcm_pause(try pcm, paused ? 1 : 0), paused ? "pause" : "resume from pause")
    }

    /// Frames the application pointer can move back now.
    func rewindable() throws(DeviceError) -> Int {
        let result = snd_pcm_rewindable(try pcm)
        if result < 0 { throw error(Int32(result), "report rewindable frames") }
        return result
    }

    /// Moves the application pointer back up to `frames`; returns how far it moved.
    func rewind(_ frames: Int) throws(DeviceError) -> Int {
        let result = snd_pcm_rewind(try pcm, snd_pcm_uframes_t(frames))
        if result < 0 { throw error(Int32(result), "rewind") }
        return result
    }

    /// Moves the application pointer forward up to `frames`; returns how far it moved.
    func forward(_ frames: Int) throws(DeviceError) -> Int {
        let result = snd_pcm_forward(try pcm, snd_pcm_uframes_t(frames))
        if result < 0 { throw error(Int32(result), "move forward") }
        return result
    }

    func drop() throws(DeviceError) {
        try check(snd_pcm_drop(try pcm), "drop")
    }

    func prepare() throws(DeviceError) {
        try check(snd_pcm_prepare(try pcm), "prepare")
    }

    func start() throws(DeviceError) {
        try check(snd_pcm_start(try pcm), "start")
    }

    /// Resumes a suspended stream; false when the device cannot (it must be prepared instead).
    func resume() throws(DeviceError) -> Bool {
        let result = snd_pcm_resume(try pcm)
        if result == 0 { return true }
        if result == -EAGAIN || result == -ENOSYS { return false }
        throw error(result, "resume")
    }

    // MARK: - Errors

    private func check(_ result: Int32, _ what: @autoclosure () -> String) throws(DeviceError) {
        if result < 0 { throw error(result, what()) }
    }

    /// The `DeviceError` for a negative ALSA result of `what`.
    func error(_ code: Int32, _ what: String) -> DeviceError {
        switch -code {
        case EPIPE: return .underrun
        case ESTRPIPE: return .suspended
        case EINVAL: return .unsupported("ALSA device '\(name)' could not \(what): \(Self.text(of: code))")
        default: return .disconnected("ALSA device '\(name)' could not \(what): \(Self.text(of: code))")
        }
    }

    static func text(of code: Int32) -> String {
        String(cString: snd_strerror(code))
    }

    // MARK: - Device names

    /// PCM names with their descriptions, from the PCM name hints whose IOID is output or unset.
    static func deviceNames() -> [(name: String, description: String)] {
        var hints: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        guard snd_device_name_hint(-1, "pcm", &hints) == 0, let hints else { return [] }
        defer { snd_device_name_free_hint(hints) }
        var names: [(name: String, description: String)] = []
        var cursor = hints
        while let hint = cursor.pointee {
            defer { cursor += 1 }
            let name = hintText(hint, "NAME")
            let io = hintText(hint, "IOID")
            guard let name, io == nil || io == "Output" else { continue }
            let description = (hintText(hint, "DESC") ?? "").split(separator: "\n").joined(separator: " — ")
            names.append((name, description))
        }
        return names
    }

    private static func hintText(_ hint: UnsafeMutableRawPointer, _ id: String) -> String? {
        guard let value = snd_device_name_get_hint(hint, id) else { return nil }
        defer { free(value) }
        return String(cString: value)
    }
}
