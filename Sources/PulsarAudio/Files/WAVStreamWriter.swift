#if canImport(Glibc)
import Glibc
#endif
import CSndFile
import PulsarCore

/// A float WAV written as its frames come, when their number is not known ahead (a live
/// capture's recording): into a temporary beside `path`, made RF64 by libsndfile only if it
/// passes 4 GiB, moved into place by `finish`, removed by `discard` — never left half-written.
///
/// Thread rules: one thread at a time (a recorder's writer thread, then its owner).
public final class WAVStreamWriter {
    public let path: String
    public let channels: Int
    private let temporary: String
    private var file: SoundFile?
    public private(set) var frames: Int64 = 0

    public init(path: String, sampleRate: Int, channels: Int) throws(AudioFileError) {
        self.path = path
        self.channels = channels
        temporary = OutputFile.temporaryPath(for: path)
        do {
            let file = try SoundFile(writing: temporary, sampleRate: sampleRate, channels: channels, format: .float, large: true)
            file.downgradeSmallRF64()
            self.file = file
        } catch {
            unlink(temporary)
            var e = error
            e.side = .output
            throw e
        }
    }

    /// Appends interleaved frames.
    public func write(_ samples: UnsafeBufferPointer<Float>) throws(AudioFileError) {
        guard let file else { return }
        do { try file.write(samples) } catch {
            var e = error
            e.side = .output
            throw e
        }
        frames += Int64(samples.count / channels)
    }

    /// Closes the file and moves it to `path`.
    public func finish() throws(AudioFileError) {
        guard let file else { return }
        self.file = nil
        do {
            try file.close()
            try OutputFile.commit(temporary, to: path)
        } catch let error as AudioFileError {
            unlink(temporary)
            var e = error
            e.side = .output
            throw e
        } catch {
            unlink(temporary)
            throw AudioFileError(path: path, message: "\(error)", side: .output)
        }
    }

    /// Closes and removes what was written.
    public func discard() {
        guard let file else { return }
        self.file = nil
        try? file.close()
        unlink(temporary)
    }

    deinit { discard() }
}
