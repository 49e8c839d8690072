import PulsarCommandLine
import PulsarCore
import PulsarLottie
import PulsarVideo

extension FuzzEntry {
    /// `pulsar video`'s options, each a field of the input (NUL-separated, in order: the output
    /// name, `--fps`, `--size`, `--rate`, `--max-duration`, `--duration` in ms, `--loop`, an
    /// animation's `fr`, and `--reverse` when the ninth field is not empty; an empty field is an
    /// option left out), checked by the code the command runs (`VideoOptions`, `Arguments`,
    /// `LottieLimits.canvasSize`), then the frame schedule of a timeline of that duration walked at its
    /// start and its end. No file is read or written. A refusal is the expected outcome; a trap,
    /// or a schedule whose slots are out of order or outside the output, is a finding.
    public static func videoOptions(_ bytes: [UInt8]) {
        VideoOptionsEntry.run(bytes)
    }
}

enum VideoOptionsEntry {
    static let command = "pulsar video"
    static let fields = ["-o", "--fps", "--size", "--rate", "--max-duration", "--duration", "--loop"]
    static let options = fields.map { Arguments.Option(names: [$0], takesValue: true) } + [Arguments.Option(names: ["--reverse"], takesValue: false)]

    static func run(_ bytes: [UInt8]) {
        let parts = bytes.split(separator: 0, omittingEmptySubsequences: false).prefix(9).map { String(decoding: $0, as: UTF8.self) }
        var words = ["in.json"]
        for (name, value) in zip(fields, parts) where !value.isEmpty { words += [name, value] }
        if parts.count > 8, !parts[8].isEmpty { words.append("--reverse") }
        let fr = parts.count > 7 ? Double(parts[7]) : nil
        guard let args = try? Arguments(words, options: options, command: command) else { return }
        do {
            let schedule = try check(args, animationRate: fr)
            walk(schedule)
        } catch let refusal as VideoRefusal {
            // Its own words are one line (the values in it excerpted), before `main` escapes any.
            precondition(MessageText.oneLine(refusal.message) == refusal.message, "a refusal of more than one line")
        } catch {
            // Another option's failure: a value in it may hold a line break, which `main` escapes.
        }
    }

    /// The checks `VideoCommand.run` makes, in its order, and the schedule of the timeline the
    /// options give (a pattern lasting `--duration`, default 1 s); `checkLength` refusing it is
    /// noted, and the schedule walked all the same.
    static func check(_ args: Arguments, animationRate: Double?) throws -> FrameSchedule {
        let output = args.value("-o") ?? "out.mp4"
        let container = try VideoOptions.container(output: output)
        let rate = SampleRate(try args.integer("--rate", default: 48_000, in: SampleRate.supported, command: command))!
        let checked = try VideoOptions(container: container, output: output, fps: args.value("--fps"), sampleRate: rate.hertz,
                                       maxDuration: args.value("--max-duration"))
        if let text = args.value("--size") {
            let given = try LottieLimits.canvasSize(parsing: text)
            try checked.checkPicture(width: given.width, height: given.height, given: true, input: "in.json", origin: "")
        }
        let ms = try args.milliseconds("--duration", command: command) ?? 1000
        let loops = try args.integer("--loop", default: 1, in: 1...1_000_000, command: command)
        let frames = max(FrameIndex(saturating: ms * Double(rate.hertz) / 1000), 1)
        let timeline = try PlaybackTimeline(segmentStart: ContentFrame(0), segmentEnd: ContentFrame(frames), loopCount: loops,
                                            reverse: args.flag("--reverse"))
        let fps = try checked.frameRate(animationRate: animationRate, input: "in.json")
        let schedule = FrameSchedule(sampleRate: rate.hertz, frameRate: fps, timeline: timeline)
        do {
            try checked.checkLength(schedule, input: "in.json")
        } catch {
            precondition(schedule.seconds > checked.maximumSeconds, "refused a video within --max-duration: \(error)")
        }
        return schedule
    }

    /// The first 240 slots and the last 16: each inside the output, after the one before, its
    /// content time inside the segment; the slot after the last at or past the end.
    static func walk(_ schedule: FrameSchedule) {
        let count = schedule.slotCount
        precondition(count >= 1, "no slot in \(schedule.sampleCount) samples")
        let segment = Double(schedule.timeline.segmentLength) * 1000 / Double(schedule.sampleRate)
        var previous: Int64 = -1
        for k in Array(0..<min(count, 240)) + Array(max(count - 16, 240)..<max(count, 240)) {
            let slot = schedule.slot(k)
            precondition(slot.sample >= 0 && slot.sample < schedule.sampleCount, "slot \(k) at sample \(slot.sample) of \(schedule.sampleCount)")
            precondition(slot.sample > previous, "slot \(k) at \(slot.sample), not after \(previous)")
            precondition(schedule.endSample(ofSlot: k) > slot.sample, "slot \(k) ends where it starts")
            let ms = slot.contentMilliseconds
            precondition(ms.isFinite && ms >= -1e-9 && ms <= segment * (1 + 1e-12) + 1e-6, "slot \(k) at content \(ms) ms of \(segment)")
            previous = slot.sample
        }
        precondition(schedule.sample(ofSlot: count) >= schedule.sampleCount, "slot \(count) is inside the output")
    }
}
