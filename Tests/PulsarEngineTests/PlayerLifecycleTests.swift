import Foundation
import PulsarAudio
import PulsarBundle
import PulsarCore
import PulsarEngine
import PulsarSimulation
import Synchronization
import Testing

/// A value behind a pthread mutex (NSLock), which ThreadSanitizer sees, unlike the futex
/// inside the standard library's `Mutex`.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}

/// A device twin that watches who drives it: closes, writes, and writes that overlap (two
/// threads at once) or come after the close.
final class WatchedDevice: OutputDevice, @unchecked Sendable {
    let inner: SimulatedDevice
    let closes = Atomic<Int>(0)
    let writes = Atomic<Int>(0)
    let overlapping = Atomic<Int>(0)
    let afterClose = Atomic<Int>(0)
    private let inWrite = Atomic<Bool>(false)
    /// The threads that have written, by kernel thread id (pthread ids are reused after a join).
    let writers = Locked<Set<UInt>>([])

    init(clock: MonotonicClock) { inner = SimulatedDevice(clock: clock) }

    var capabilities: DeviceCapabilities { inner.capabilities }
    var framesWritten: FrameIndex { inner.framesWritten }
    func open(_ requested: DeviceConfiguration) throws(DeviceError) -> DeviceConfiguration { try inner.open(requested) }
    func availableFrames() throws(DeviceError) -> Int { try inner.availableFrames() }
    func write(_ samples: UnsafeBufferPointer<Float>) throws(DeviceError) -> Int {
        if inWrite.exchange(true, ordering: .acquiringAndReleasing) { overlapping.add(1, ordering: .relaxed) }
        defer { inWrite.store(false, ordering: .releasing) }
        if closes.load(ordering: .acquiring) > 0 { afterClose.add(1, ordering: .relaxed) }
        writes.add(1, ordering: .relaxed)
        let me = Self.kernelThreadID()
        writers.withLock { _ = $0.insert(me) }
        return try inner.write(samples)
    }
    /// The calling thread's kernel id, read from `/proc/thread-self` ("PID/task/TID").
    static func kernelThreadID() -> UInt {
        var path = [CChar](repeating: 0, count: 64)
        let n = readlink("/proc/thread-self", &path, path.count - 1)
        let text = n > 0 ? String(decoding: path[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        return UInt(text.split(separator: "/").last ?? "") ?? 0
    }
    func position() throws(DeviceError) -> DevicePosition { try inner.position() }
    func pause(_ paused: Bool) throws(DeviceError) { try inner.pause(paused) }
    func rewind(_ frames: Int) throws(DeviceError) -> Int { try inner.rewind(frames) }
    func drop() throws(DeviceError) { try inner.drop() }
    func prepare() throws(DeviceError) { try inner.prepare() }
    func close() {
        closes.add(1, ordering: .releasing)
        inner.close()
    }
}

/// Whoever starts the real-time thread joins it: on `shutdown` and when the player goes.
@Suite struct PlayerLifecycleTests {
    /// Waits (without a time bound the test depends on) until `device` has been written `count` times.
    static func waitForWrites(_ device: WatchedDevice, atLeast count: Int) {
        while device.writes.load(ordering: .relaxed) < count { usleep(1_000) }
    }

    @Test("A player dropped while playing joins its thread and closes the device exactly once; nothing writes after", .timeLimit(.minutes(10)))
    func dropWhilePlaying() throws {
        let device = WatchedDevice(clock: SystemMonotonicClock())
        weak var weakPlayer: HapticPlayer?
        do {
            let player = try HapticPlayer(mixer: try steadyMixer(milliseconds: 60_000), device: device)
            weakPlayer = player
            player.start()
            player.play()
            Self.waitForWrites(device, atLeast: 5)
        }
        #expect(weakPlayer == nil, "nothing keeps a dropped player alive")
        #expect(device.closes.load(ordering: .acquiring) == 1)
        let writes = device.writes.load(ordering: .acquiring)
        usleep(30_000)  // ample for a thread left running to write again (a period is 5.3 ms)
        #expect(device.writes.load(ordering: .acquiring) == writes, "the real-time thread ended before the player did")
        #expect(device.afterClose.load(ordering: .acquiring) == 0)
    }

    @Test("shutdown joins: once it returns nothing writes; twice is harmless; the device stays open until the player goes", .timeLimit(.minutes(10)))
    func shutdownTwice() throws {
        let device = WatchedDevice(clock: SystemMonotonicClock())
        var player: HapticPlayer? = try HapticPlayer(mixer: try steadyMixer(milliseconds: 60_000), device: device)
        player?.start()
        player?.play()
        Self.waitForWrites(device, atLeast: 5)
        player?.shutdown()
        #expect(player?.isRunning == false)
        let writes = device.writes.load(ordering: .acquiring)
        usleep(30_000)
        #expect(device.writes.load(ordering: .acquiring) == writes)
        player?.shutdown()
        #expect(device.closes.load(ordering: .acquiring) == 0)
        player = nil
        #expect(device.closes.load(ordering: .acquiring) == 1)
    }

    @Test("start after shutdown runs a fresh thread from where the transport stands; never two threads at once", .timeLimit(.minutes(10)))
    func startAfterShutdown() throws {
        let device = WatchedDevice(clock: SystemMonotonicClock())
        let player = try HapticPlayer(mixer: try steadyMixer(milliseconds: 60_000), device: device)
        player.start()
        player.play()
        Self.waitForWrites(device, atLeast: 5)
        player.shutdown()
        let first = device.writers.withLock { $0 }
        let written = player.streamWritten
        player.start()
        player.start()  // a second start while running does nothing
        Self.waitForWrites(device, atLeast: device.writes.load(ordering: .acquiring) + 5)
        player.shutdown()
        #expect(player.streamWritten > written, "the new thread went on writing")
        let all = device.writers.withLock { $0 }
        #expect(first.count == 1 && all.count == 2, "one thread a run: \(all.count) writers")
        #expect(device.overlapping.load(ordering: .acquiring) == 0)
        #expect(player.failure == nil)
    }
}

@Suite struct PlayerSetupTests {
    @Test("A mixer that would decode its audio on the real-time thread is refused before the device opens")
    func streamingMixerIsRefused() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pulsar-streaming-\(getpid())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let tone = PatternData(continuousPattern: ContinuousPattern(amplitude: [ValuePoint(time: 0, value: 0.5), ValuePoint(time: 200, value: 0.5)]))
        let path = dir + "/audio.wav"
        _ = try WAVExporter(format: .float).export(try PatternRenderer(pattern: tone, sampleRate: SampleRate(48_000)!), to: path)
        let audio = AudioAsset(source: "audio.wav", bytes: try FileByteSource(path: path))
        let preset = PresetHandle(id: "a", name: "a", duration: 0, pattern: tone, audio: audio)
        let streaming = try PresetMixer(preset: preset, settings: MixSettings(layout: .stereoHaptic))
        #expect(!streaming.isRealtimeSafe)
        let device = WatchedDevice(clock: ManualClock())
        #expect(throws: DeviceError.self) { try HapticPlayer(mixer: streaming, device: device) }
        var settings = MixSettings(layout: .stereoHaptic)
        settings.preloadAudio = true
        let preloaded = try PresetMixer(preset: preset, settings: settings)
        let adjusted = try preloaded.adjusted { $0.loopCount = 2 }
        #expect(preloaded.isRealtimeSafe && adjusted.isRealtimeSafe)
        _ = try HapticPlayer(mixer: preloaded, device: device)
    }
}

/// A device that always has room and takes everything at once: it consumes faster than any
/// renderer, as a simulated device on the system clock does for a slow build.
final class BottomlessDevice: OutputDevice {
    var writes = 0
    var configuration: DeviceConfiguration?
    var capabilities: DeviceCapabilities { DeviceCapabilities(canPause: false, canRewind: false) }
    var framesWritten: FrameIndex = 0
    func open(_ requested: DeviceConfiguration) throws(DeviceError) -> DeviceConfiguration {
        configuration = requested
        return requested
    }
    func availableFrames() throws(DeviceError) -> Int { configuration?.bufferFrames ?? 0 }
    func write(_ samples: UnsafeBufferPointer<Float>) throws(DeviceError) -> Int {
        writes += 1
        let frames = samples.count / (configuration?.channels ?? 1)
        framesWritten += FrameIndex(frames)
        return frames
    }
    func position() throws(DeviceError) -> DevicePosition { DevicePosition(framesPlayed: framesWritten, timestamp: MonotonicTime(nanoseconds: 0)) }
    func pause(_ paused: Bool) throws(DeviceError) {}
    func rewind(_ frames: Int) throws(DeviceError) -> Int { 0 }
    func drop() throws(DeviceError) {}
    func prepare() throws(DeviceError) {}
    func close() {}
}

@Suite struct PlayerStepBoundTests {
    @Test("A step writes at most one buffer, even to a device that always has room, so it returns to its commands and to shutdown",
          .timeLimit(.minutes(10)))
    func stepIsBounded() throws {
        let device = BottomlessDevice()
        let player = try HapticPlayer(mixer: try steadyMixer(milliseconds: 60_000), device: device, monotonic: ManualClock(),
                                      periodFrames: 256, bufferFrames: 1024)
        player.play()
        try player.step()
        #expect(device.writes == 4, "1024 frames in 256-frame blocks")
        #expect(player.streamWritten == 1024)
    }
}
