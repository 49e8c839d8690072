import PulsarCore
import PulsarSession

@_cdecl("pulsar_replay")
public func pulsar_replay(_ logPath: UnsafePointer<CChar>?, _ hapticDevice: Int32, _ buffer: UnsafeMutablePointer<Float>?,
                          _ capacityFrames: Int64, _ framesOut: UnsafeMutablePointer<Int64>?, _ channelsOut: UnsafeMutablePointer<Int32>?,
                          _ rateOut: UnsafeMutablePointer<Int32>?) -> Int32 {
    let function = "pulsar_replay"
    guard let path = text(logPath) else { return Result.argument.failing("\(function): the log path is NULL or not UTF-8") }
    guard let framesOut, let channelsOut, let rateOut else { return Result.argument.failing("\(function): frames, channels and sample_rate must not be NULL") }
    var warnings: [ContentWarning] = []
    do throws(SessionError) {
        // As `pulsar render --replay` rebuilds it: the session layer opens each logged input.
        let session = try SessionReplay.read(logAt: path, warnings: &warnings)
        var reader = try session.reader(of: hapticDevice != 0 ? .haptic : .main)
        let (layout, rate, frames) = reader.stream
        let channels = layout.channelCount
        (framesOut.pointee, channelsOut.pointee, rateOut.pointee) = (frames, Int32(channels), Int32(rate.hertz))
        guard let buffer else { return Result.ok.rawValue }
        guard frames * Int64(channels) <= Int64(Int32.max) else {
            return Result.argument.failing("\(function): \(frames) frames × \(channels) channels is more than 2^31 - 1 samples: pulsar render --replay writes a longer session")
        }
        guard capacityFrames >= frames else {
            return Result.argument.failing("\(function): the buffer holds \(capacityFrames) frames, the stream \(frames)")
        }
        var done: Int64 = 0
        while done < frames {
            let n = Int(min(frames - done, 4096))
            do {
                try reader.render(into: UnsafeMutableBufferPointer(start: buffer + Int(done) * channels, count: n * channels))
            } catch {
                return Result.data.failing("\(function): \(error)")
            }
            done += Int64(n)
        }
        return Result.ok.rawValue
    } catch {
        return error.libraryResult.failing("\(function): \(error.description)")
    }
}
