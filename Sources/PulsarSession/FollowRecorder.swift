#if canImport(Glibc)
import Glibc
#endif
import PulsarAudio
import PulsarCore
@_spi(Internals) import PulsarEngine
import Synchronization

/// The sound `pulsar follow` took in, written as it comes: the frames the follower read (a
/// capture's as read on the device's clock, silence where it had none) go from the stepping
/// thread into a ring, and a writer thread moves them into a float WAV (`WAVStreamWriter`)
/// every 20 ms — so an hour's recording holds a few seconds in memory, and replay rebuilds the
/// run. A ring that fills (a disk slower than the sound) drops what does not fit and counts it:
/// the recording is then incomplete, and the log says so.
///
/// Thread rules: `record` from the stepping thread (real-time safe); `finish` and `discard` from
/// the control thread after the stepping stopped; they join the writer.
public final class FollowRecorder: @unchecked Sendable {
    private let ring: SampleRing
    private let writer: WAVStreamWriter
    private var thread: JoinableThread?
    private let running = Atomic<Bool>(true)
    private let droppedFrames = Atomic<Int64>(0)
    private let channels: Int
    /// Set by the writer thread when a write failed (then it stops writing).
    private var failure: AudioFileError?
    private let failed = Atomic<Bool>(false)

    /// Records `channels`-channel frames at `sampleRate` into `path`; the ring holds `seconds`.
    public init(path: String, sampleRate: Int, channels: Int, seconds: Double = 8) throws(AudioFileError) {
        self.channels = channels
        writer = try WAVStreamWriter(path: path, sampleRate: sampleRate, channels: channels)
        ring = SampleRing(minimumCapacity: Int(Double(sampleRate) * seconds) * channels)
        thread = JoinableThread(name: "pulsar-record") { [unowned self] in self.drainLoop() }
    }

    /// Frames that did not fit and are not in the recording.
    public var dropped: Int64 { droppedFrames.load(ordering: .relaxed) }

    /// Appends whole frames (interleaved). Real-time safe.
    public func record(_ frames: UnsafeBufferPointer<Float>) {
        if !ring.write(frames) { droppedFrames.add(Int64(frames.count / channels), ordering: .relaxed) }
    }

    private func drainLoop() {
        let block = UnsafeMutableBufferPointer<Float>.allocate(capacity: 16_384 * channels)
        defer { block.deallocate() }
        while true {
            let stopping = !running.load(ordering: .acquiring)
            var moved = 0
            repeat {
                moved = ring.read(into: block)
                if moved > 0, !failed.load(ordering: .relaxed) {
                    do { try writer.write(UnsafeBufferPointer(rebasing: block[0..<moved])) } catch {
                        failure = error
                        failed.store(true, ordering: .releasing)
                    }
                }
            } while moved == block.count
            if stopping { return }
            usleep(20_000)
        }
    }

    /// Stops the writer after it wrote everything, and moves the file into place. Returns the
    /// frames written.
    public func finish() throws(AudioFileError) -> Int64 {
        running.store(false, ordering: .releasing)
        thread?.join()
        thread = nil
        if failed.load(ordering: .acquiring), let failure {
            writer.discard()
            throw failure
        }
        try writer.finish()
        return writer.frames
    }

    /// Stops the writer and removes the file.
    public func discard() {
        running.store(false, ordering: .releasing)
        thread?.join()
        thread = nil
        writer.discard()
    }

    deinit { discard() }
}
