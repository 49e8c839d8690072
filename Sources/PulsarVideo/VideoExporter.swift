import Glibc
import PulsarAudio
import PulsarCore
import PulsarLottieRender

/// Why an export failed: a picture could not be drawn, the preset audio could not be read, or
/// the video could not be written.
public enum VideoExportError: Error, CustomStringConvertible {
    case picture(any Error)
    case audio(AudioFileError)
    case video(VideoError)
    case output(OutputFile.Failure)

    public var description: String {
        switch self {
        case .picture(let e): return "\(e)"
        case .audio(let e): return e.description
        case .video(let e): return e.description
        case .output(let e): return e.description
        }
    }
}

/// What an export wrote.
public struct VideoReport: Sendable {
    /// Video frames (slots of the schedule).
    public var frames: Int
    /// Output samples (the audio tracks' length).
    public var samples: Int64
    /// Audio samples the mix limiter touched.
    public var limitedSamples: Int
}

/// Writes a video: for each slot of the schedule its picture (from the frame source) at the
/// slot's sample, then the mix's samples up to the next slot, split into the audio tracks — so
/// the streams advance together and the muxer interleaves them without holding either back.
/// The file is built in a hidden sibling (`OutputFile.temporaryPath(for:)`) and renamed into
/// place when complete; on any failure nothing is left behind.
public struct VideoExporter {
    public var settings: VideoSettings
    /// For each audio track of `settings`, the mixer channels it takes, in order.
    public var routing: [[Int]]

    public init(settings: VideoSettings, routing: [[Int]]) {
        precondition(routing.count == settings.audioTracks.count && zip(routing, settings.audioTracks).allSatisfy { $0.count == $1.channels },
                     "one channel list per audio track, as many channels as the track has")
        self.settings = settings
        self.routing = routing
    }

    /// The temporary file an export to `path` builds (for an interrupt handler to remove).
    public static func temporaryPath(for path: String) -> String { OutputFile.temporaryPath(for: path) }

    public func export(schedule: FrameSchedule, source: any VideoFrameSource, mixer: PresetMixer,
                       to path: String, progress: (Double) -> Void = { _ in }) throws(VideoExportError) -> VideoReport {
        let temporary = Self.temporaryPath(for: path)
        do throws(VideoExportError) {
            let encoder: VideoEncoder
            do { encoder = try VideoEncoder(path: temporary, settings: settings) } catch { throw .video(error) }
            var audio = AudioSplitter(mixer: mixer, routing: routing)
            var report = VideoReport(frames: schedule.slotCount, samples: schedule.sampleCount, limitedSamples: 0)
            for k in 0..<schedule.slotCount {
                let slot = schedule.slot(k)
                let picture: ARGB32Image
                do { picture = try source.picture(for: slot) } catch { throw .picture(error) }
                do { try encoder.appendFrame(picture, at: slot.sample) } catch { throw .video(error) }
                report.limitedSamples += try audio.feed(encoder, from: slot.sample, to: schedule.endSample(ofSlot: k))
                progress(Double(schedule.endSample(ofSlot: k)) / Double(max(schedule.sampleCount, 1)))
            }
            do { try encoder.finish() } catch { throw .video(error) }
            do { try OutputFile.commit(temporary, to: path) } catch { throw .output(error) }
            return report
        } catch {
            unlink(temporary)
            throw error
        }
    }
}

/// The mix rendered block by block and split into the audio tracks' channels.
struct AudioSplitter {
    let mixer: PresetMixer
    let routing: [[Int]]
    static let blockFrames = 4096
    private var mixed: [Float]
    private var track: [Float]

    init(mixer: PresetMixer, routing: [[Int]]) {
        self.mixer = mixer
        self.routing = routing
        mixed = [Float](repeating: 0, count: Self.blockFrames * mixer.channelCount)
        track = [Float](repeating: 0, count: Self.blockFrames * (routing.map(\.count).max() ?? 0))
    }

    /// Renders output samples `start ..< end` and appends them to every track; returns the
    /// samples the limiter touched.
    mutating func feed(_ encoder: VideoEncoder, from start: Int64, to end: Int64) throws(VideoExportError) -> Int {
        guard !routing.isEmpty else { return 0 }
        var limited = 0
        var position = start
        let channels = mixer.channelCount
        while position < end {
            let n = Int(min(Int64(Self.blockFrames), end - position))
            do {
                limited += try mixed.withUnsafeMutableBufferPointer { buffer throws(AudioFileError) in
                    try mixer.render(into: UnsafeMutableBufferPointer(rebasing: buffer[0..<(n * channels)]),
                                     from: TimelineFrame(position)).limitedSamples
                }
            } catch {
                throw .audio(error)
            }
            for (index, picks) in routing.enumerated() {
                for i in 0..<n {
                    for (c, from) in picks.enumerated() { track[i * picks.count + c] = mixed[i * channels + from] }
                }
                do {
                    try track.withUnsafeBufferPointer { buffer throws(VideoError) in
                        try encoder.appendAudio(UnsafeBufferPointer(rebasing: buffer[0..<(n * picks.count)]), track: index)
                    }
                } catch {
                    throw .video(error)
                }
            }
            position += Int64(n)
        }
        return limited
    }
}
