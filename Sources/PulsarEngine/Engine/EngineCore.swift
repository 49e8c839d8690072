import PulsarAudio
import PulsarCore
import Synchronization

/// The body of the engine's real-time thread, one `step()` per wake-up: apply queued voice
/// commands at their effective frames, keep the device fed with the mix of every attached voice
/// (`VoiceMix`), report positions, underruns, completions and voices leaving. A thread calls
/// `step()` in a loop; tests call it with a driven clock.
///
/// Voices live in a fixed number of slots. The control thread puts a `VoiceCore` in a free slot
/// and then sends `attach` for it; the real-time thread mixes the attached slots in slot order,
/// and reports `detached` when a voice that ends by itself has ended, after which the control
/// thread may empty the slot (`remove`). No reference crosses the command queue, and nothing is
/// allocated, retained or freed on the real-time thread.
///
/// Effective frame of a command: with a device that really rewinds, the first frame not yet
/// heard plus `safetyMargin`, never before an earlier command's — the queued tail past it is
/// discarded and every voice rewritten from there; otherwise the write head. A command for a
/// voice whose start is scheduled ahead (`send(_:to:notBefore:)`) takes effect at that start.
/// Stream frames count every frame written since `start`, across device re-prepares.
///
/// Two devices (`hapticDevice`): the mix has one channel more than the main device, the haptic
/// channel, last. The stream is rendered into a ring (`StreamRing`) as far as either device
/// needs; the main device takes its channels frame for frame, the haptic device reads the last
/// channel where its `HapticDeviceFeed` says the main device's clock is heard. Commands then take
/// effect where the stream has been rendered to (no rewind): both devices hear them at the same
/// content instant.
///
/// Thread rules: `send`, `install` and `remove` from one control thread at a time; `step` from
/// the real-time thread only; `events` is drained by one non-real-time thread. `step` allocates
/// nothing, takes no lock and does no I/O beyond the device calls (voices' mixers preload).
@_spi(Internals) public final class EngineCore: @unchecked Sendable {
    let device: OutputDevice
    /// The mix's configuration: the main device's, with one channel more in the two-device mode.
    let configuration: DeviceConfiguration
    /// The two-device mode's haptic device and the stream ring both read (nil: one device).
    let feed: HapticDeviceFeed?
    let ring: StreamRing?
    /// The main device's channels (the mix's, less the haptic device's one in two-device mode).
    let mainChannels: Int
    let mainBuffer: UnsafeMutableBufferPointer<Float>
    var mainWrittenBoth = StreamFrame.zero
    /// Frames kept between the hardware position and an effective frame (rewinding devices).
    let safetyMargin: Int
    /// How many voices can be in the mix at once.
    let slotCount: Int

    /// A command on its way to the real-time thread.
    struct Queued {
        var voice: Int32
        var command: EngineCommand
        var time: MonotonicTime
        var notBefore: StreamFrame?
    }

    /// Commands in (control thread → real-time thread).
    private let commands: SPSCQueue<Queued>
    /// Reports out (real-time thread → control thread).
    public let events: SPSCQueue<EngineEvent>

    /// Voices by slot: written by the control thread while the real-time thread does not hold
    /// the slot (before `attach`, after `detached`).
    let slots: UnsafeMutablePointer<VoiceCore?>
    /// The attached slots in ascending order, and how many (real-time thread).
    let attached: UnsafeMutablePointer<Int>
    var attachedCount = 0

    /// Monotonic time of the first frame written to the device (nil before): the moment the
    /// device starts. Written once by the real-time thread; read it after `shutdown`.
    var firstWriteTime: MonotonicTime?
    /// Stream frames written (and not rewound); in two-device mode, rendered into the ring.
    var streamWritten = StreamFrame.zero
    /// Stream frames the main device was given.
    var mainWritten: StreamFrame { feed == nil ? streamWritten : mainWrittenBoth }
    /// Frames the haptic device was given (two-device mode).
    var hapticDeviceWritten: HapticDeviceFrame { feed?.written ?? .zero }
    /// The master gain on every voice's haptics (real-time thread).
    private(set) var master = ParameterTrack(initial: 1, capacity: 256)
    /// The latest effective frame a command took: no rewind reaches before it.
    private var lastEffective = StreamFrame.zero
    /// Stream frame at the device's frame 0 (moves on every re-prepare).
    var deviceBase = StreamFrame.zero
    /// When the previous `step` began; a longer gap than the buffer lasts means the device ran dry.
    private var lastStep: MonotonicTime?
    /// The device ran dry while this thread was held up, and has not said so itself yet.
    var unreportedStall = false
    /// Set while a callback device steps the core: a step writes all the device asks for (a
    /// whole cycle, however large the graph's quantum), not at most a buffer's worth.
    var fillsWhatTheDeviceAsks = false
    let buffer: UnsafeMutableBufferPointer<Float>
    let mix: VoiceMix
    let clock: MonotonicClock
    /// Events the queue refused since the last one it took; reported as `eventsLost` first
    /// thing when it takes one again.
    var unreportedLosses = 0
    private let fadeLength: Int
    /// How late the steps came, for any thread to read.
    let wakeups = WakeupStatistics()

    /// An engine on `device` with `slotCount` empty voice slots; with `hapticDevice`, the last of
    /// `configuration.channels` goes to that device and the rest to `device`.
    init(device: OutputDevice, clock: MonotonicClock, configuration: DeviceConfiguration, slotCount: Int = 1,
         safetyMargin: Int? = nil, commandCapacity: Int = 256, eventCapacity: Int = 65_536,
         hapticDevice: HapticDeviceOutput? = nil) throws(DeviceError) {
        self.device = device
        self.clock = clock
        if let hapticDevice {
            guard configuration.channels >= 2 else {
                throw .unsupported("two devices need a mix of at least two channels: the main device's and the haptic one")
            }
            guard hapticDevice.device !== device else { throw .unsupported("the haptic device is the main device") }
            var main = configuration
            main.channels -= 1
            let opened = try device.open(main)
            guard opened.channels == main.channels else {
                device.close()
                throw .unsupported("the main device has \(opened.channels) channels, the mix needs \(main.channels) there")
            }
            let feedConfiguration: DeviceConfiguration
            do throws(DeviceError) {
                feedConfiguration = try Self.openHapticDevice(hapticDevice)
            } catch {
                device.close()
                throw error
            }
            var mix = opened
            mix.channels += 1
            self.configuration = mix
            mainChannels = opened.channels
            feed = HapticDeviceFeed(hapticDevice, configuration: feedConfiguration, streamRate: opened.sampleRate,
                                    mainExactPositions: device.capabilities.exactPositions)
            ring = StreamRing(channels: mix.channels)
        } else {
            self.configuration = try device.open(configuration)
            mainChannels = self.configuration.channels
            feed = nil
            ring = nil
        }
        mainBuffer = .allocate(capacity: feed == nil ? 0 : self.configuration.periodFrames * mainChannels)
        self.slotCount = max(slotCount, 1)
        // PulseAudio's rewind safeguard: 1.33 ms (at least a quarter period) ahead of what is heard.
        self.safetyMargin = safetyMargin ?? max(configuration.periodFrames / 4, Int(Double(configuration.sampleRate.hertz) * 0.00133))
        commands = SPSCQueue(minimumCapacity: commandCapacity)
        events = SPSCQueue(minimumCapacity: eventCapacity)
        slots = .allocate(capacity: self.slotCount)
        slots.initialize(repeating: nil, count: self.slotCount)
        attached = .allocate(capacity: self.slotCount)
        attached.initialize(repeating: 0, count: self.slotCount)
        buffer = .allocate(capacity: self.configuration.periodFrames * self.configuration.channels)
        mix = VoiceMix(channels: self.configuration.channels, maximumFrames: self.configuration.periodFrames)
        fadeLength = TransportState.fadeFrames(at: self.configuration.sampleRate)
    }

    /// A single player's engine: one voice, in slot 0, attached from the start and staying
    /// (`endsByItself` false), playing `renderer`'s mixers (or following `realtime`'s positions).
    public convenience init(renderer: TransportRenderer, device: OutputDevice, clock: MonotonicClock, configuration: DeviceConfiguration,
                            safetyMargin: Int? = nil, commandCapacity: Int = 256, eventCapacity: Int = 65_536,
                            realtime: RealtimeTrack? = nil, hapticDevice: HapticDeviceOutput? = nil) throws(DeviceError) {
        try Self.check(renderer.mixer, configuration)
        try self.init(device: device, clock: clock, configuration: configuration, slotCount: 1, safetyMargin: safetyMargin,
                      commandCapacity: commandCapacity, eventCapacity: eventCapacity, hapticDevice: hapticDevice)
        slots[0] = VoiceCore(renderer: renderer, id: 0, endsByItself: false, realtime: realtime)
        attached[0] = 0
        attachedCount = 1
    }

    deinit {
        slots.deinitialize(count: slotCount)
        slots.deallocate()
        attached.deallocate()
        buffer.deallocate()
        mainBuffer.deallocate()
        device.close()
        feed?.device.close()
    }

    /// Opens the haptic device with its layout's channels, refusing one that cannot carry them.
    private static func openHapticDevice(_ output: HapticDeviceOutput) throws(DeviceError) -> DeviceConfiguration {
        guard output.layout.usesHaptics else {
            throw .unsupported("the haptic device's layout \(output.layout.name) has no haptic channel")
        }
        let wanted = DeviceConfiguration(sampleRate: output.sampleRate, channels: output.layout.channelCount,
                                         periodFrames: output.periodFrames, bufferFrames: output.bufferFrames)
        let opened: DeviceConfiguration
        do throws(DeviceError) {
            opened = try output.device.open(wanted)
        } catch {
            throw onHapticDevice(error)
        }
        guard opened.channels == wanted.channels else {
            output.device.close()
            throw .unsupported("haptic device: it has \(opened.channels) channels, layout \(output.layout.name) needs \(wanted.channels)")
        }
        return opened
    }

    /// A haptic device's error, saying which device it is.
    static func onHapticDevice(_ error: DeviceError) -> DeviceError {
        switch error {
        case .disconnected(let why): return .disconnected("the haptic device: \(why)")
        case .unsupported(let why): return .unsupported("haptic device: \(why)")
        case .badState(let why): return .badState("haptic device: \(why)")
        case .underrun, .suspended: return error
        }
    }

    /// Why `mixer` cannot play on an engine of `channels` channels, if it cannot.
    static func check(_ mixer: PresetMixer, _ configuration: DeviceConfiguration) throws(DeviceError) {
        guard mixer.isRealtimeSafe else {
            throw .unsupported("the mixer decodes its audio while it renders; a player needs it preloaded (MixSettings.preloadAudio)")
        }
        guard configuration.channels == mixer.channelCount else {
            throw .unsupported("the mixer has \(mixer.channelCount) channels, the device was asked for \(configuration.channels)")
        }
        // A mix at another rate would play that much too fast or slow, and log a stream the
        // replay could not rebuild.
        guard mixer.settings.sampleRate == configuration.sampleRate else {
            throw .unsupported("the mixer renders at \(mixer.settings.sampleRate), the engine runs at \(configuration.sampleRate)")
        }
    }

    // MARK: Control thread

    /// The voice in `slot`, if any. Control thread (its mixers' control side, its id).
    func voice(_ slot: Int) -> VoiceCore? {
        slot >= 0 && slot < slotCount ? slots[slot] : nil
    }

    /// The renderer of the voice in slot 0 (a single player's). Control thread.
    public var renderer: TransportRenderer {
        guard let voice = slots[0] else { preconditionFailure("no voice in slot 0") }
        return voice.renderer
    }

    /// The transport state of the voice in slot 0 (a single player's), as the real-time thread
    /// left it: read it in driven use or after `shutdown`.
    package var state: TransportState { slots[0]?.state ?? .initial }

    /// Puts `voice` in the empty `slot`; send `attach` for it next. Control thread.
    func install(_ voice: VoiceCore, in slot: Int) throws(DeviceError) {
        try Self.check(voice.renderer.mixer, configuration)
        precondition(slots[slot] == nil, "a voice slot is filled only while empty")
        slots[slot] = voice
    }

    /// Empties `slot` after the real-time thread reported its voice `detached` (or before its
    /// `attach` was ever accepted). Control thread: the voice is released here, not on the
    /// real-time thread.
    func remove(_ slot: Int) {
        slots[slot] = nil
    }

    /// The slot commands for the engine itself go to (the master gain).
    static let engineSlot = -1

    /// Queues `command` for the voice in `slot` (0: a single player's; `engineSlot`: the engine's
    /// master gain); false when the queue is full. `notBefore`: the command takes effect no earlier than that stream frame (a start
    /// scheduled at an engine time). Control thread.
    /// A voice's command is admitted only while the voice is in its slot and has not left the
    /// mix (`VoiceCore.admit`); false otherwise, as for a full queue.
    @discardableResult
    public func send(_ command: EngineCommand, to slot: Int = 0, notBefore: StreamFrame? = nil) -> Bool {
        let voice = slot == Self.engineSlot ? nil : self.voice(slot)
        if slot != Self.engineSlot {
            guard let voice, voice.admit() else { return false }
        }
        guard commands.push(Queued(voice: Int32(slot), command: command, time: clock.now(), notBefore: notBefore)) else {
            voice?.applied()
            return false
        }
        return true
    }

    /// Commands the real-time thread took but could not apply (its voice had been stolen, or
    /// the command does not apply to it): never expected, counted so that nothing waits on one.
    var droppedCommands: Int { dropped.load(ordering: .acquiring) }
    private let dropped = Atomic<Int>(0)

    /// Commands the real-time thread applied but whose report the full event queue refused
    /// (nobody polled for 65 536 events): counted here so that no one waits for their reports.
    var unreportedCommands: Int { lostCommandReports.load(ordering: .acquiring) }
    let lostCommandReports = Atomic<Int>(0)

    // MARK: Real-time thread

    /// One wake-up of the real-time thread.
    ///
    /// A wake-up later than the whole buffer lasts (the thread or the process was stopped or
    /// starved) means the device ran dry, whether or not it reports an underrun: some sound
    /// servers fill the gap with silence and hold their position. Such a gap is logged as an
    /// underrun that lost no frames, so the clock restarts on the device's new time line.
    public func step() throws(DeviceError) {
        let now = clock.now()
        noteWakeup(now)
        while let queued = commands.pop() {
            try apply(queued)
            voice(Int(queued.voice))?.applied()
        }
        releaseUnheardSteals()
        try fill()
        let reading = try device.position()
        let heard = streamFrame(of: reading)
        if unreportedStall {
            unreportedStall = false
            let at = min(heard, mainWritten)
            report(.underrun(lostFrom: at, lostTo: at, time: now))
            // The feed's fits stay: both devices were held up alike, and a line that really
            // moved shows as a run of outliers, which restarts a fit by itself. Restarting them
            // here made the touch follow fresh fits a millisecond or two off (measured on
            // PipeWire, where a stall moves neither device's line).
        }
        report(.position(streamFrame: heard, time: reading.timestamp))
        if let feed {
            feed.steering.main.add(frames: heard.index, at: reading.timestamp)
            let own: DevicePosition
            do throws(DeviceError) { own = try feed.device.position() } catch { throw Self.onHapticDevice(error) }
            report(.hapticDevicePosition(frame: feed.observe(own), time: own.timestamp))
        }
        endVoices(heard: heard)
        // Ramps wholly behind what is heard are never rendered again.
        master.forget(before: heard)
        for i in 0..<attachedCount {
            let voice = slots[attached[i]]!
            voice.intensity.forget(before: heard)
            // The oscillator keeps its last checkpoint at or before `heard`; a settle may render
            // on from there, so the sharpness keeps its ramps from that frame.
            voice.oscillator.forget(before: heard)
            voice.sharpness.forget(before: min(heard, voice.oscillator.checkpoints.first?.frame ?? heard))
            voice.realtime?.forget(before: heard)
        }
    }

    private func noteWakeup(_ now: MonotonicTime) {
        if let lastStep {
            // A callback device's cycles pace the steps (its quantum may outlast the buffer);
            // it reports running dry itself.
            if !fillsWhatTheDeviceAsks, now.seconds(since: lastStep) > Double(configuration.bufferFrames) / Double(configuration.sampleRate.hertz) {
                unreportedStall = true
            }
            wakeups.note(gapNanoseconds: now.nanoseconds - lastStep.nanoseconds,
                         periodNanoseconds: Int64(Double(configuration.periodFrames) / Double(configuration.sampleRate.hertz) * 1e9))
        }
        lastStep = now
    }

    /// Applies one queued command to its voice (slot −1: the engine's master gain). A stolen
    /// voice takes none: it is leaving.
    private func apply(_ queued: Queued) throws(DeviceError) {
        let slot = Int(queued.voice)
        if slot == Self.engineSlot, case .parameter(.masterGain, let target) = queued.command {
            let now = try effectiveFrame()
            let effective = max(now, queued.notBefore ?? now)
            master.apply(target, at: effective)
            report(.command(queued.command, voice: slot, requestTime: queued.time, effectiveFrame: effective, state: .initial))
            return
        }
        guard slot >= 0, slot < slotCount, let voice = slots[slot], voice.stolenUntil == nil else { return drop() }
        if case .parameter(.masterGain, _) = queued.command { return drop() }
        let command = queued.command
        if case .attach = command {
            guard !isAttached(slot) else { return drop() }
            attach(slot)
        } else if !isAttached(slot) {
            return drop()
        }
        let now = try effectiveFrame()
        // A voice whose start lies ahead takes its commands at that start.
        let effective = max(now, voice.state.anchor, queued.notBefore ?? now)
        if command == .stop && voice.state.mode != .stopped {
            report(.completion(voice: slot, finished: false, streamFrame: effective))
        }
        // The voice's oscillator reaches the frame in the state it leaves, before anything
        // there changes.
        do {
            try mix.settle(voice.state, of: voice.renderer, sharpness: voice.sharpness, oscillator: voice.oscillator, to: effective)
        } catch {
            report(.renderFailed(voice: slot, from: effective, to: effective))
        }
        var parameters = voice
        CommandEffects.apply(command, at: effective, state: voice.state, to: &parameters)
        voice.state = voice.applying(command, at: effective, fadeLength: fadeLength)
        // A realtime voice has no timeline to run off: it plays until stopped.
        voice.pendingCompletion = voice.realtime == nil ? voice.renderer.endStreamFrame(of: voice.state) : nil
        if command == .steal {
            if voice.mixed {
                voice.stolenUntil = effective + FrameIndex(fadeLength)
            } else {
                // Never mixed, never heard (a start stolen in the period it was made): it leaves
                // at once and silent — its fade would sound the first millisecond of its sound.
                voice.state.ramp = .none
                voice.state.rampOffset = 0
                voice.stolenUntil = effective
            }
        } else if command == .stop {
            voice.ended = true
        } else if voice.state.mode != .stopped {
            voice.ended = false
        }
        report(.command(command, voice: slot, requestTime: queued.time, effectiveFrame: effective, state: voice.state))
    }

    private func drop() {
        dropped.add(1, ordering: .releasing)
    }

    /// Completions at the ends of timelines and of steals' fades, and voices that end by
    /// themselves leaving the mix, by the frame now heard.
    private func endVoices(heard: StreamFrame) {
        var i = 0
        while i < attachedCount {
            let slot = attached[i]
            let voice = slots[slot]!
            if let end = voice.pendingCompletion, heard >= end {
                report(.completion(voice: slot, finished: true, streamFrame: end))
                voice.pendingCompletion = nil
                voice.state = TransportState(mode: .stopped, timelineFrame: voice.renderer.mixers.mixer(voice.state.mix).timeline.end,
                                             anchor: end, mix: voice.state.mix)
                voice.ended = true
            }
            if let until = voice.stolenUntil, heard >= until {
                report(.completion(voice: slot, finished: false, streamFrame: until))
                voice.stolenUntil = nil
                voice.ended = true
            }
            // It leaves only while no command for it is in flight (one is applied next step).
            if voice.endsByItself, voice.ended, heard >= voice.state.anchor, voice.leave() {
                report(.detached(voice: slot, streamFrame: heard))
                detach(at: i)
                continue
            }
            i += 1
        }
    }

    /// Stolen voices no block ever mixed leave now, before the next block: their slots are free
    /// for the next burst of starts at once (a voice fading out waits until its fade is heard).
    private func releaseUnheardSteals() {
        var i = 0
        while i < attachedCount {
            let slot = attached[i]
            let voice = slots[slot]!
            if let until = voice.stolenUntil, !voice.mixed, voice.leave() {
                report(.completion(voice: slot, finished: false, streamFrame: until))
                report(.detached(voice: slot, streamFrame: until))
                voice.stolenUntil = nil
                voice.ended = true
                detach(at: i)
                continue
            }
            i += 1
        }
    }

    private func isAttached(_ slot: Int) -> Bool {
        for i in 0..<attachedCount where attached[i] == slot { return true }
        return false
    }

    /// Adds `slot` to the attached list, keeping it in ascending order.
    private func attach(_ slot: Int) {
        var i = attachedCount
        while i > 0, attached[i - 1] > slot {
            attached[i] = attached[i - 1]
            i -= 1
        }
        attached[i] = slot
        attachedCount += 1
    }

    private func detach(at index: Int) {
        for j in index..<(attachedCount - 1) { attached[j] = attached[j + 1] }
        attachedCount -= 1
    }

    /// Where a command issued now can first be heard: never before the previous command's, so
    /// a rewind never reaches a frame an earlier command's state was rendered from.
    private func effectiveFrame() throws(DeviceError) -> StreamFrame {
        if device.capabilities.canRewind, feed == nil {
            let heard = streamFrame(of: try device.position())
            let target = min(max(heard + FrameIndex(safetyMargin), lastEffective), streamWritten)
            let wanted = Int(streamWritten - target)
            if wanted > 0 {
                let discarded = try device.rewind(wanted)
                streamWritten -= FrameIndex(discarded)
            }
        }
        lastEffective = streamWritten
        return streamWritten
    }

    /// The stream frame a device reading stands at: the device counts from its last prepare.
    func streamFrame(of reading: DevicePosition) -> StreamFrame {
        deviceBase + reading.framesPlayed
    }
}
