import PulsarCommandLine
import Glibc
import PulsarALSA
import PulsarAudio
import PulsarBundle
import PulsarCore
import PulsarLottie
import PulsarEngine
import PulsarSession
import PulsarSimulation

/// The control loop of `pulsar play`: script lines at their times, keys, the device's failure,
/// clock-log ticks and the status line, until nothing will play any more.
///
/// Thread rules: the control thread only (completions arrive there, from the engine's `poll`).
final class PlayLoop {
    /// One display tick of `--clock-log`: when, and what voice 1's clock said.
    typealias Tick = (time: MonotonicTime, content: Double?, frame: Double?)

    private let options: PlayOptions
    private let engine: HapticEngine
    private let voices: SessionVoices
    private let monotonic: SystemMonotonicClock
    private let interactive: Bool
    private let keys: KeyReader?
    private var status: StatusLine
    private let start: MonotonicTime
    /// The script; without one, or when it never plays or starts a voice, every voice plays
    /// from 0 first.
    private let pending: [TransportScript.Line]
    // Lines are taken by index (removing the first of an array would make a long script quadratic).
    private var nextLine = 0
    /// Times a due line waited because the engine could not take it yet.
    private var delayedLines = 0
    private(set) var ticks: [Tick] = []
    /// `--sync-log`'s lines so far.
    private(set) var syncText = ""
    private let output: PlayOutput
    private var nextTick: MonotonicTime
    private var paused = false
    private var done = false
    /// When the script last moved a realtime voice: its course and bursts need 100 ms to play out.
    private var lastPosition: MonotonicTime?

    /// Takes the terminal's keys and status line when interactive; the clock starts now.
    init(options: PlayOptions, output: PlayOutput, voices: SessionVoices, durationMs: Double) {
        self.options = options
        self.output = output
        engine = output.engine
        self.voices = voices
        monotonic = output.monotonic
        interactive = !options.setup.quiet && StatusLine.isAvailable
        keys = interactive ? KeyReader() : nil
        status = StatusLine(device: output.name, durationMs: durationMs)
        start = monotonic.now()
        let starts = options.script.contains { if case .play = $0.command { return true } else { return false } }
        let everyVoice = voices.contents.indices.map { TransportScript.Line(at: 0, command: .play(nil), line: 0, voice: $0 + 1) }
        pending = starts ? options.script : everyVoice + options.script
        nextTick = start
    }

    /// Starts the engine and runs until the script is done and no voice plays; a failure thrown.
    func run() throws(CommandFailure) {
        engine.start()
        if options.verbose { reportScheduling() }
        while !done || nextLine < pending.count {
            try sendDueLines()
            for key in keys?.keys() ?? [] { try act(on: key) }
            engine.poll()
            if let failure = engine.failure {
                engine.shutdown()
                status.finish()
                throw CommandFailure(.unavailable, "pulsar: error: device: \(failure)")
            }
            let now = monotonic.now()
            recordTick(at: now)
            if interactive { status.update(voice: voices.newest(0), voices: voices.liveVoices.count, underruns: engine.underruns, now: now, paused: paused) }
            // Nothing will play any more: every voice ended or stopped (or paused with no
            // terminal to resume it) and no script left. (Not while a command just sent has yet
            // to reach the voices: right after a resume a voice's clock still shows the pause.)
            let positionsOver = lastPosition.map { now.seconds(since: $0) >= 0.1 } ?? true
            if nextLine == pending.count, !engine.hasPendingCommands, voices.anyMade, voices.isIdle, positionsOver,
               !paused || keys?.isActive != true {
                done = true
            }
            sleepUntilNextWake(from: now)
        }
    }

    /// `--verbose`: the real-time thread's scheduling, once it has had a moment to ask for it.
    private func reportScheduling() {
        usleep(20_000)
        let rt = engine.hasRealtimeScheduling.map { $0 ? "SCHED_FIFO priority \(HapticEngine.realtimePriority)" : "normal priority (SCHED_FIFO refused)" } ?? "normal priority (simulated device)"
        Console.error("\(PlayCommand.command): real-time thread: \(rt)")
    }

    /// Script lines sent between two polls of the engine's reports.
    static let linesPerPoll = 256

    /// Sends the script lines whose time has come, in order; a line the engine cannot take yet waits.
    private func sendDueLines() throws(CommandFailure) {
        let elapsedMs = monotonic.now().seconds(since: start) * 1000
        while nextLine < pending.count, pending[nextLine].at <= elapsedMs {
            let next = pending[nextLine]
            // The engine is full: what the real-time thread has taken meanwhile (a queue
            // drained, stolen voices gone) is taken in and the line tried once more; then it
            // waits (never dropped) for the next wake.
            var accepted = try perform(next)
            if !accepted {
                engine.poll()
                accepted = try perform(next)
            }
            guard accepted else {
                delayedLines += 1
                break
            }
            nextLine += 1
            // The real-time thread may take lines as fast as they are sent, each leaving a report:
            // take the reports in as they come, or a long script at one instant would fill the
            // event queue (65 536) and the log would lose them.
            if nextLine % Self.linesPerPoll == 0 { engine.poll() }
            if case .position = next.command { lastPosition = monotonic.now() }
            if case .pause = next.command { paused = true }
            if case .resume = next.command { paused = false }
        }
    }

    /// One script line to the voices: false when the engine cannot take it yet.
    private func perform(_ line: TransportScript.Line) throws(CommandFailure) -> Bool {
        do {
            return try voices.perform(line.command, voice: (line.voice ?? 1) - 1)
        } catch {
            let error = error.failure
            engine.shutdown()
            throw CommandFailure(error.code, line.line > 0 ? error.message.replacing("pulsar: error: ", with: "pulsar: error: \(options.scriptPath ?? "script"):\(line.line): ") : error.message)
        }
    }

    /// A key from the terminal: pause / resume every voice, seek voice 1 ∓500 ms, restart every
    /// voice, or quit.
    private func act(on key: PlayKey) throws(CommandFailure) {
        switch key {
        case .pauseResume:
            for voice in voices.liveVoices { _ = paused ? voice.resume() : voice.pause() }
            paused.toggle()
        case .seekBack, .seekForward:
            guard let voice = voices.live(0) else { return }
            let at = voice.contentTime(at: monotonic.now()) ?? 0
            voice.seek(toMs: at + (key == .seekBack ? -500 : 500))
        case .restart:
            paused = false
            do throws(SessionError) {
                for v in voices.contents.indices { _ = try voices.start(v, fromMs: nil) }
            } catch {
                throw error.failure
            }
        case .quit:
            nextLine = pending.count
            for voice in voices.liveVoices { voice.stop() }
        }
    }

    /// `--clock-log`: notes voice 1's clock at `now` when a display tick is due.
    private func recordTick(at now: MonotonicTime) {
        guard options.clockLogPath != nil || options.syncLogPath != nil, now >= nextTick else { return }
        let voice = voices.newest(0)
        if options.clockLogPath != nil { ticks.append((now, voice?.contentTime(at: now), voice?.animationFrame(at: now))) }
        if options.syncLogPath != nil { syncText += SyncLog.line(at: now, output: output, voice: voice, latency: options.latency) }
        nextTick = nextTick.adding(seconds: 1 / options.tickRate)
        if nextTick < now { nextTick = now.adding(seconds: 1 / options.tickRate) }
    }

    /// Sleeps to the next script line, clock-log tick or status/key check (10 ms at most;
    /// 1 ms while a line waits for the engine).
    private func sleepUntilNextWake(from now: MonotonicTime) {
        var wake = now.adding(seconds: 0.010)
        if nextLine < pending.count { wake = min(wake, max(start.adding(seconds: pending[nextLine].at / 1000), now.adding(seconds: 0.001))) }
        if options.clockLogPath != nil || options.syncLogPath != nil { wake = min(wake, nextTick) }
        let sleep = wake.seconds(since: monotonic.now())
        if sleep > 0 { usleep(UInt32(sleep * 1e6)) }
    }

    /// Warns of late script lines, lets the device play out what is queued, then stops the thread.
    func playOut() {
        if delayedLines > 0, !options.setup.quiet {
            Console.error("pulsar: warning: \(delayedLines) times a script line waited for the engine (its command queue, voice slots or mix table were full): those lines took effect later than written")
        }
        usleep(UInt32(Double(engine.configuration.bufferFrames) / Double(options.setup.rate.hertz) * 1e6) + 20_000)
        engine.poll()
        engine.shutdown()
        engine.poll()
        status.finish()
    }

    /// Gives the terminal back: keys echo again and the status line is ended.
    func restoreTerminal() {
        keys?.restore()
        status.finish()
    }
}
