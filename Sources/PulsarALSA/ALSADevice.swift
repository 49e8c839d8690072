import CAlsa
import PulsarCore
import PulsarEngine

#if canImport(Glibc)
import Glibc
#endif

/// An ALSA playback PCM (`pipewire`, `default`, `hw:0,0`, …) as an `OutputDevice`.
///
/// - Samples are written interleaved, as `FLOAT_LE` when the device takes it, else converted to
///   `S32_LE` or `S16_LE` by `SampleConversion` (scaled by 2³¹ or 2¹⁵ — the inverse of
///   PipeWire's and ALSA's integer to float scaling, so k/2¹⁵ round-trips exactly — rounded,
///   saturated, NaN as 0) through a buffer preallocated at `open`.
/// - `position()`: frames played = frames written − the status' delay, clamped to
///   `0…framesWritten` and never decreasing between prepares; its timestamp is the status'
///   `CLOCK_MONOTONIC` timestamp, or the clock read at the call when the device gives none.
/// - `capabilities.canPause` is the hardware's pause flag; `canRewind` is the result of a probe
///   at `open` (queue silence, rewind half of it, check the delay really dropped — the pulse
///   plugin reports success and discards nothing) and turns false if a later rewind is found
///   not to discard.
/// - The PipeWire plugin reports a server that went away as an underrun (`-EPIPE`) that
///   `prepare` cannot clear. So `-EPIPE` from a stream that was not running (prepared or
///   paused), or right after a `prepare`, is `.disconnected`; once disconnected, every call
///   throws `.disconnected` until `close`.
///
/// Thread rules: `open` and `close` on a control thread (they allocate and may print ALSA's
/// messages when `ALSAErrorLog.shared.isVerbose`); between them, every other call from the one
/// thread driving the device. `write`, `availableFrames`, `position`, `pause`, `rewind`, `drop`
/// and `prepare` allocate nothing themselves on success (a thrown error carries a message built
/// then) and never block (the PCM is non-blocking); inside, alsa-lib and its plugin may take
/// their own short locks.
public final class ALSADevice: OutputDevice {
    /// The ALSA PCM name this device opens.
    public let name: String
    public private(set) var configuration: DeviceConfiguration?
    public private(set) var capabilities = DeviceCapabilities(canPause: false, canRewind: false)
    public private(set) var framesWritten: FrameIndex = 0

    /// The sample format negotiated at `open` (`FLOAT_LE`, `S32_LE` or `S16_LE`).
    public var sampleFormatName: String? { setup?.format.name }

    private var pcm: ALSAPCM?
    private var setup: ALSAHardwareSetup?
    private var conversion: UnsafeMutableRawPointer?
    /// The PCM's poll descriptors while open (empty when it has none).
    public private(set) var pollDescriptors = UnsafeMutableBufferPointer<pollfd>(start: nil, count: 0)
    /// The last frames-played the device itself reported, and when (zero: none since `prepare`).
    private var lastPlayed: FrameIndex = 0
    private var lastPlayedTime = MonotonicTime(nanoseconds: 0)
    /// The last frames-played `position()` returned (readings never go back).
    private var reportedPlayed: FrameIndex = 0
    /// Pause requested before the stream started: it is held back from starting.
    private var holdingStart = false
    private var paused = false
    /// `drop` ran: only `prepare` is allowed.
    private var dropped = false
    private var gone: String?

    /// A device for ALSA PCM `name`; nothing is opened until `open`.
    public init(name: String = "default") {
        self.name = name
    }

    deinit {
        close()
    }

    // MARK: - Opening (control thread)

    /// Opens and configures the PCM at the requested rate and channel count (exact; the device's
    /// own plugins may convert), with period and buffer near the requests; probes rewinding.
    /// Errors are one line naming the device.
    public func open(_ requested: DeviceConfiguration) throws(DeviceError) -> DeviceConfiguration {
        guard pcm == nil else { throw .badState("ALSA device '\(name)' is already open") }
        guard requested.channels >= 1 else {
            throw .unsupported("ALSA device '\(name)': \(requested.channels) channels requested")
        }
        guard requested.periodFrames >= 1, requested.bufferFrames >= requested.periodFrames else {
            throw .unsupported("ALSA device '\(name)': period \(requested.periodFrames), buffer \(requested.bufferFrames) frames requested")
        }
        ALSAErrorLog.install()
        defer { ALSAErrorLog.shared.flushToStandardError() }
        let pcm = try ALSAPCM(name: name)
        let setup = try pcm.configure(rate: requested.sampleRate.hertz, channels: requested.channels,
                                      periodFrames: requested.periodFrames, bufferFrames: requested.bufferFrames)
        if setup.format != .float32 {
            conversion = .allocate(byteCount: setup.bufferFrames * setup.channels * setup.format.bytesPerSample,
                                   alignment: 16)
        }
        self.pcm = pcm
        self.setup = setup
        pollDescriptors = pcm.pollDescriptors() ?? UnsafeMutableBufferPointer(start: nil, count: 0)
        let negotiated = DeviceConfiguration(sampleRate: requested.sampleRate, channels: setup.channels,
                                             periodFrames: setup.periodFrames, bufferFrames: setup.bufferFrames)
        configuration = negotiated
        do {
            capabilities = DeviceCapabilities(canPause: setup.canPause, canRewind: try probeRewind())
            try resetStream()
        } catch {
            close()
            throw error
        }
        return negotiated
    }

    /// Queues silence (enough to start the stream), rewinds half of what can be rewound, and
    /// checks that the delay dropped by at least half of what ALSA says it rewound. A device
    /// that refuses any step cannot rewind; one that is gone fails the open.
    private func probeRewind() throws(DeviceError) -> Bool {
        guard let pcm, let setup else { return false }
        let silence = UnsafeMutableBufferPointer<Float>.allocate(capacity: setup.bufferFrames * setup.channels)
        defer { silence.deallocate() }
        silence.initialize(repeating: 0)
        do {
            var queued = 0
            while queued < setup.bufferFrames {
                let n = try write(UnsafeBufferPointer(rebasing: silence[(queued * setup.channels)...]))
                if n == 0 { break }
                queued += n
            }
            let before = try pcm.status()
            let wanted = try pcm.rewindable() / 2
            guard wanted > 0 else { return false }
            let rewound = try pcm.rewind(wanted)
            guard rewound > 0 else { return false }
            let after = try pcm.status()
            return before.delay - after.delay >= (rewound + 1) / 2
        } catch .disconnected(let why) {
            throw .disconnected(why)
        } catch {
            return false
        }
    }

    /// Drops whatever is queued and prepares: counters at 0, ready to write.
    private func resetStream() throws(DeviceError) {
        guard let pcm else { throw .badState("ALSA device '\(name)' is not open") }
        if pcm.state != SND_PCM_STATE_SETUP && pcm.state != SND_PCM_STATE_OPEN {
            try pcm.drop()
        }
        try pcm.prepare()
        if holdingStart, let setup {
            try pcm.setStartThreshold(setup.periodFrames)
        }
        framesWritten = 0
        lastPlayed = 0
        lastPlayedTime = MonotonicTime(nanoseconds: 0)
        reportedPlayed = 0
        holdingStart = false
        paused = false
        dropped = false
    }

    /// Closes the PCM and frees the conversion buffer. Safe to call twice.
    public func close() {
        pcm?.close()
        pcm = nil
        setup = nil
        configuration = nil
        conversion?.deallocate()
        conversion = nil
        pollDescriptors.deallocate()
        pollDescriptors = UnsafeMutableBufferPointer(start: nil, count: 0)
        gone = nil
        ALSAErrorLog.shared.flushToStandardError()
    }

    // MARK: - Driving (one thread)

    /// After a wait on `pollDescriptors`: whether the PCM wants data or has an error to report.
    public func wantsData() -> Bool {
        guard let pcm, pollDescriptors.count > 0 else { return true }
        return pcm.wantsData(pollDescriptors)
    }

    /// The open PCM, or the error every call throws once the device is gone or closed.
    private func livePCM() throws(DeviceError) -> ALSAPCM {
        if let gone { throw .disconnected(gone) }
        guard let pcm else { throw .badState("ALSA device '\(name)' is not open") }
        return pcm
    }

    /// Maps a failure of a call made in `stateBefore`; `-EPIPE` from a stream that was not
    /// running cannot be an underrun, so it means the device is gone.
    private func fail(_ error: DeviceError, stateBefore: snd_pcm_state_t) -> DeviceError {
        switch error {
        case .underrun where stateBefore == SND_PCM_STATE_PREPARED || stateBefore == SND_PCM_STATE_PAUSED:
            return markGone("it reports an underrun while not running (its server or hardware went away)")
        case .disconnected(let why):
            return markGone(why)
        default:
            return error
        }
    }

    private func markGone(_ why: String) -> DeviceError {
        let message = why.hasPrefix("ALSA device") ? why : "ALSA device '\(name)': \(why)"
        gone = message
        return .disconnected(message)
    }

    public func availableFrames() throws(DeviceError) -> Int {
        let pcm = try livePCM()
        if dropped { return 0 }
        let state = pcm.state
        let avail: Int
        do {
            avail = try pcm.avail()
        } catch {
            throw fail(error, stateBefore: state)
        }
        let buffer = setup?.bufferFrames ?? 0
        // More room than the buffer holds: the device played past the last written frame — an
        // underrun that some plugins (PipeWire's, when the writer was stopped) do not report,
        // filling the gap with silence and moving their pointer on. Report it, so the player
        // restarts the stream and logs the gap instead of counting the silence as played.
        if avail > buffer, state == SND_PCM_STATE_RUNNING { throw .underrun }
        return min(avail, buffer)
    }

    /// Queues whole frames without blocking; returns how many were taken (0 when full).
    public func write(_ samples: UnsafeBufferPointer<Float>) throws(DeviceError) -> Int {
        let pcm = try livePCM()
        guard let setup, let base = samples.baseAddress else { return 0 }
        if dropped { throw .badState("ALSA device '\(name)' was dropped: prepare() before writing") }
        let frames = samples.count / setup.channels
        guard frames > 0 else { return 0 }
        let state = pcm.state
        var taken = 0
        do {
            if setup.format == .float32 {
                taken = try pcm.writeInterleaved(base, frames: frames)
            } else {
                while taken < frames {
                    let chunk = min(frames - taken, setup.bufferFrames)
                    convert(base + taken * setup.channels, count: chunk * setup.channels, format: setup.format)
                    let n = try pcm.writeInterleaved(conversion!, frames: chunk)
                    taken += n
                    if n < chunk { break }
                }
            }
        } catch {
            framesWritten += FrameIndex(taken)
            throw fail(error, stateBefore: state)
        }
        framesWritten += FrameIndex(taken)
        return taken
    }

    /// Converts into the preallocated buffer through `SampleConversion` (saturating, NaN as 0:
    /// no sample traps the real-time thread).
    private func convert(_ source: UnsafePointer<Float>, count: Int, format: ALSASampleFormat) {
        guard let conversion else { return }
        switch format {
        case .int32:
            SampleConversion.convert(source, count: count, into: conversion.assumingMemoryBound(to: Int32.self))
        case .int16:
            SampleConversion.convert(source, count: count, into: conversion.assumingMemoryBound(to: Int16.self))
        case .float32:
            break
        }
    }

    /// Frames heard since the last `prepare` and the monotonic time of the reading. During an
    /// underrun (when ALSA's delay is meaningless) the last reading is carried forward at the
    /// nominal rate up to `framesWritten`; after `drop` the last reading holds.
    public func position() throws(DeviceError) -> DevicePosition {
        let pcm = try livePCM()
        if dropped {
            return DevicePosition(framesPlayed: reportedPlayed, timestamp: Self.now())
        }
        let state = pcm.state
        let status: ALSAStatus
        do {
            status = try pcm.status()
        } catch {
            throw fail(error, stateBefore: state)
        }
        let stamp = status.timestamp
        let time = stamp.tv_sec == 0 && stamp.tv_nsec == 0
            ? Self.now()
            : MonotonicTime(nanoseconds: Int64(stamp.tv_sec) * 1_000_000_000 + Int64(stamp.tv_nsec))
        let played: FrameIndex
        switch status.state {
        case SND_PCM_STATE_XRUN:
            let since = lastPlayedTime.nanoseconds == 0 ? 0 : max(time.seconds(since: lastPlayedTime), 0)
            played = lastPlayed + FrameIndex(since * Double(setup?.rate ?? 0))
        case SND_PCM_STATE_DISCONNECTED:
            throw markGone("the device was disconnected")
        default:
            played = framesWritten - FrameIndex(status.delay)
            lastPlayed = played
            lastPlayedTime = time
        }
        reportedPlayed = min(max(played, reportedPlayed, 0), framesWritten)
        return DevicePosition(framesPlayed: reportedPlayed, timestamp: time)
    }

    private static func now() -> MonotonicTime {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return MonotonicTime(nanoseconds: Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec))
    }

    /// Stops (true) or resumes (false) consumption, keeping what is queued. Before the stream
    /// has started, pausing holds it back from starting and resuming starts it if a period is
    /// queued. Throws `.unsupported` when the device cannot pause.
    public func pause(_ pausing: Bool) throws(DeviceError) {
        let pcm = try livePCM()
        guard capabilities.canPause, let setup else {
            throw .unsupported("ALSA device '\(name)' cannot pause")
        }
        guard pausing != paused, !dropped else { return }
        let state = pcm.state
        do throws(DeviceError) {
            if pausing {
                if state == SND_PCM_STATE_RUNNING {
                    try pcm.pause(true)
                } else if state == SND_PCM_STATE_PREPARED {
                    try pcm.setStartThreshold(pcm.boundary)
                    holdingStart = true
                } else if state == SND_PCM_STATE_XRUN {
                    throw DeviceError.underrun
                }
            } else if holdingStart {
                try pcm.setStartThreshold(setup.periodFrames)
                holdingStart = false
                if framesWritten >= FrameIndex(setup.periodFrames) && pcm.state == SND_PCM_STATE_PREPARED {
                    try pcm.start()
                }
            } else if state == SND_PCM_STATE_PAUSED {
                try pcm.pause(false)
            }
        } catch {
            throw fail(error, stateBefore: state)
        }
        paused = pausing
    }

    /// Discards up to `frames` of the newest queued frames, keeping one period in front of the
    /// hardware pointer (a consumer may be reading it), and returns how many were discarded —
    /// checked against the delay; 0 when the device cannot rewind.
    public func rewind(_ frames: Int) throws(DeviceError) -> Int {
        let pcm = try livePCM()
        guard capabilities.canRewind, frames > 0, !dropped, let setup else { return 0 }
        let state = pcm.state
        do {
            let allowed = min(frames, try pcm.rewindable() - setup.periodFrames)
            guard allowed > 0 else { return 0 }
            let before = try pcm.status()
            let rewound = try pcm.rewind(allowed)
            guard rewound > 0 else { return 0 }
            let after = try pcm.status()
            guard before.delay - after.delay >= (rewound + 1) / 2 else {
                // The device kept the frames: move the pointer back where they are.
                _ = try pcm.forward(rewound)
                capabilities.canRewind = false
                return 0
            }
            framesWritten -= FrameIndex(rewound)
            return rewound
        } catch {
            throw fail(error, stateBefore: state)
        }
    }

    /// Discards everything queued and stops; `prepare()` must follow before writing.
    public func drop() throws(DeviceError) {
        let pcm = try livePCM()
        guard !dropped else { return }
        let state = pcm.state
        do {
            if state != SND_PCM_STATE_SETUP && state != SND_PCM_STATE_OPEN {
                try pcm.drop()
            }
        } catch {
            throw fail(error, stateBefore: state)
        }
        dropped = true
    }

    /// Discards whatever is queued and makes the device ready to write; counters restart at 0.
    /// Recovers underruns and suspends. A device that reports an underrun again at once is gone.
    public func prepare() throws(DeviceError) {
        let pcm = try livePCM()
        do {
            if pcm.state == SND_PCM_STATE_SUSPENDED {
                _ = try pcm.resume()
            }
            try resetStream()
            _ = try pcm.avail()
        } catch {
            throw fail(error, stateBefore: SND_PCM_STATE_PREPARED)
        }
    }
}
