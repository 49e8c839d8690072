import Foundation
import PulsarTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A private PipeWire session (dbus-daemon, pipewire with the null sink `test-sink`, wireplumber)
/// run by `scripts/pipewire-session.sh` in a temporary directory.
///
/// `shared` is the one session of the suite: started on first use, its variables set in this
/// process (before any ALSA open, so ALSA device `pipewire` reaches it), stopped at exit. When
/// `PULSAR_PIPEWIRE_DIR` names a session someone else started (`pipewire-session.sh start DIR`,
/// ideally with DIR/env already sourced into this process's environment), `shared` uses that
/// one and leaves stopping it to its owner. Tests that hurt their server start their own with
/// `start()` and reach it through `alsaName`. The script's `--watch` stops a session whose test
/// process died.
///
/// Thread rules: `shared` from any thread; an instance from one test at a time.
final class PipeWireServer: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let directory: URL
    /// The session's variables (from DIR/env).
    let environment: [String: String]
    /// Process IDs by program (`dbus-daemon`, `pipewire`, `wireplumber`, `watcher`).
    let processIDs: [String: pid_t]
    /// Whether `stop` ends the session (false for one found through PULSAR_PIPEWIRE_DIR).
    private let owned: Bool
    private var stopped = false

    /// ALSA PCM name reaching this server without changing the process environment.
    var alsaName: String {
        "pipewire:SERVER=\"\(environment["PIPEWIRE_RUNTIME_DIR"] ?? "")/pipewire-0\""
    }

    /// ALSA PCM name reaching the node `node` of this server.
    func alsaName(node: String) -> String {
        "pipewire:SERVER=\"\(environment["PIPEWIRE_RUNTIME_DIR"] ?? "")/pipewire-0\",NODE=\(node)"
    }

    private static let scriptPath: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("scripts/pipewire-session.sh").path
    }()

    /// Programs the session needs, and the ALSA plugin.
    private static let requirements = ["dbus-daemon", "pipewire", "wireplumber", "wpctl", "pw-record"]

    /// Whether this machine can run the session; when not, prints one line saying what is missing.
    static let isAvailable: Bool = {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        var missing = requirements.filter { tool in
            !path.contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)") }
        }
        let plugins = ["/usr/lib/x86_64-linux-gnu/alsa-lib", "/usr/lib/aarch64-linux-gnu/alsa-lib", "/usr/lib/alsa-lib", "/usr/lib64/alsa-lib"]
        if !plugins.contains(where: { FileManager.default.fileExists(atPath: "\($0)/libasound_module_pcm_pipewire.so") }) {
            missing.append("the ALSA pipewire plugin")
        }
        if !missing.isEmpty {
            print("note: PulsarALSATests skipped: \(missing.joined(separator: ", ")) not installed (Debian: pipewire pipewire-bin pipewire-alsa wireplumber dbus)")
        }
        return missing.isEmpty
    }()

    private static let sharedServer: Result<PipeWireServer, Failure> = {
        do {
            if let given = ProcessInfo.processInfo.environment["PULSAR_PIPEWIRE_DIR"], !given.isEmpty {
                let server = try load(URL(fileURLWithPath: given), owned: false)
                server.exportEnvironment()
                return .success(server)
            }
            let server = try start()
            server.exportEnvironment()
            atexit { PipeWireServer.stopShared() }
            return .success(server)
        } catch let failure as Failure {
            return .failure(failure)
        } catch {
            return .failure(Failure(description: "\(error)"))
        }
    }()

    /// The suite's server, started on first use; its variables are set in this process.
    static func shared() throws -> PipeWireServer {
        try sharedServer.get()
    }

    private static func stopShared() {
        if case .success(let server) = sharedServer {
            server.stop()
        }
    }

    private init(directory: URL, environment: [String: String], processIDs: [String: pid_t], owned: Bool) {
        self.directory = directory
        self.environment = environment
        self.processIDs = processIDs
        self.owned = owned
    }

    /// Starts a new session in a fresh temporary directory; waits until the sink is listed.
    static func start() throws -> PipeWireServer {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("pulsar-pipewire-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let (status, errors) = try runScript(["start", directory.path, "--watch", "\(getpid())"])
        guard status == 0 else {
            throw Failure(description: "pipewire-session.sh start failed (\(status)): \(errors)")
        }
        return try load(directory, owned: true)
    }

    /// The session described by DIR/env and DIR/pids.
    private static func load(_ directory: URL, owned: Bool) throws -> PipeWireServer {
        let env = try String(contentsOf: directory.appendingPathComponent("env"), encoding: .utf8)
        var environment: [String: String] = [:]
        for line in env.split(separator: "\n") where line.hasPrefix("export ") {
            let assignment = line.dropFirst("export ".count)
            guard let equals = assignment.firstIndex(of: "=") else { continue }
            environment[String(assignment[..<equals])] = String(assignment[assignment.index(after: equals)...])
                .trimmingCharacters(in: CharacterSet(charactersIn: "'"))
        }
        let pids = try String(contentsOf: directory.appendingPathComponent("pids"), encoding: .utf8)
        var processIDs: [String: pid_t] = [:]
        for line in pids.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count == 2, let pid = pid_t(fields[1]) {
                processIDs[String(fields[0])] = pid
            }
        }
        guard processIDs["pipewire"] != nil, environment["XDG_RUNTIME_DIR"] != nil else {
            throw Failure(description: "pipewire-session.sh wrote no pids or env in \(directory.path)")
        }
        return PipeWireServer(directory: directory, environment: environment, processIDs: processIDs, owned: owned)
    }

    /// Sets the session's variables in this process (the ALSA plugin reads them at each open);
    /// variables already right are left alone (other suites may be reading the environment).
    func exportEnvironment() {
        for (key, value) in environment where getenv(key).map({ String(cString: $0) }) != value {
            setenv(key, value, 1)
        }
        if getenv("PIPEWIRE_REMOTE") != nil {
            unsetenv("PIPEWIRE_REMOTE")
        }
    }

    /// Stops the session by its recorded PIDs and removes its directory (only a session this
    /// process started). Idempotent.
    func stop() {
        guard owned, !stopped else { return }
        stopped = true
        _ = try? Self.runScript(["stop", directory.path])
        try? FileManager.default.removeItem(at: directory)
    }

    /// Sends `signal` to one of the session's programs.
    func kill(_ program: String, signal: Int32 = SIGKILL) {
        if let pid = processIDs[program] {
            Glibc.kill(pid, signal)
        }
    }

    /// Starts `pw-record` capturing what reaches `test-sink` as 32-bit float stereo at 48 kHz;
    /// returns its PID (`finishRecording` ends it).
    func startRecording(to file: URL) throws -> pid_t {
        let environment = ProcessInfo.processInfo.environment.merging(self.environment) { _, session in session }
        return try Self.spawn(["/usr/bin/env", "pw-record", "--target", "test-sink", "-P", "{ stream.capture.sink=true }",
                               "--format", "f32", "--rate", "48000", "--channels", "2", file.path],
                              environment: environment,
                              output: directory.appendingPathComponent("pw-record-\(file.deletingPathExtension().lastPathComponent).log").path)
    }

    /// Adds a null sink `name` (a timer-driven `support.null-audio-sink` that lingers until
    /// `destroy`) with `positions` as its channels, e.g. `["FL", "FR", "RL", "RR"]`.
    /// `driver` false: the sink does not drive a graph it is linked into, it follows the one
    /// that does (a driver's monitor reaches its readers a cycle late: two sinks captured through a
    /// third must both follow it, or the one driving shows a quantum later than it played). A
    /// null sink says `node.driver=true` whatever it is given, so the choice is made by
    /// `priority.driver`: 1 for a follower, above the session's own sink for a driver.
    func createSink(_ name: String, description: String? = nil, positions: [String], driver: Bool = true) throws {
        let properties = "{ factory.name=support.null-audio-sink node.name=\(name) node.description=\"\(description ?? name)\" media.class=Audio/Sink audio.channels=\(positions.count) audio.position=[\(positions.joined(separator: " "))] audio.rate=48000 object.linger=true priority.driver=\(driver ? 30000 : 1) }"
        guard tool(["pw-cli", "create-node", "adapter", properties]) == 0 else { throw Failure(description: "pw-cli could not make the sink \(name)") }
        Poll.until(every: 20_000) { ((try? nodes()) ?? []).contains { $0.properties["node.name"] as? String == name } }
    }

    /// Links output port `from` (`node:port`) to input port `to`.
    func link(_ from: String, _ to: String) throws {
        guard tool(["pw-link", from, to]) == 0 else { throw Failure(description: "pw-link \(from) \(to) failed") }
    }

    /// Makes the graph run at `frames` a cycle whatever its streams ask (0: as they ask).
    func forceQuantum(_ frames: Int) throws {
        guard tool(["pw-metadata", "-n", "settings", "0", "clock.force-quantum", "\(frames)"]) == 0 else {
            throw Failure(description: "pw-metadata could not set the quantum to \(frames)")
        }
    }

    /// Removes the node named `name` from the graph (as unplugging its device would).
    func destroy(node name: String) throws {
        guard let id = nodeID(name), tool(["pw-cli", "destroy", "\(id)"]) == 0 else {
            throw Failure(description: "pw-cli could not destroy \(name)")
        }
    }

    /// The global id of the node named `name` (pw-dump's `id`).
    private func nodeID(_ name: String) -> Int? {
        let environment = ProcessInfo.processInfo.environment.merging(self.environment) { _, server in server }
        let file = directory.appendingPathComponent("pw-dump-\(UUID().uuidString.prefix(8)).json")
        defer { try? FileManager.default.removeItem(at: file) }
        guard let pid = try? Self.spawn(["/usr/bin/env", "pw-dump"], environment: environment, output: file.path) else { return nil }
        _ = Self.wait(pid)
        let objects = (try? JSONSerialization.jsonObject(with: Data(contentsOf: file))) as? [[String: Any]] ?? []
        return objects.first { ((($0["info"] as? [String: Any])?["props"] as? [String: Any])?["node.name"] as? String) == name }?["id"] as? Int
    }

    /// Runs a PipeWire tool in the session to its end; its status.
    private func tool(_ arguments: [String]) -> Int32 {
        let environment = ProcessInfo.processInfo.environment.merging(self.environment) { _, server in server }
        guard let pid = try? Self.spawn(["/usr/bin/env"] + arguments, environment: environment,
                                        output: directory.appendingPathComponent("\(arguments[0]).log").path) else { return -1 }
        return Self.wait(pid)
    }

    /// Starts `pw-record` capturing what reaches the sink `target` as 32-bit float at 48 kHz with
    /// its `positions`; returns its PID (`finishRecording` ends it).
    func startRecording(to file: URL, target: String, positions: [String]) throws -> pid_t {
        let environment = ProcessInfo.processInfo.environment.merging(self.environment) { _, session in session }
        return try Self.spawn(["/usr/bin/env", "pw-record", "--target", target, "-P", "{ stream.capture.sink=true }",
                               "--format", "f32", "--rate", "48000", "--channels", "\(positions.count)",
                               "--channel-map", positions.joined(separator: ","), file.path],
                              environment: environment,
                              output: directory.appendingPathComponent("pw-record-\(file.deletingPathExtension().lastPathComponent).log").path)
    }

    /// The nodes of the server's graph (from `pw-dump`): each node's state (`running`,
    /// `suspended`, …) and its properties.
    func nodes() throws -> [(state: String, properties: [String: Any])] {
        let environment = ProcessInfo.processInfo.environment.merging(self.environment) { _, server in server }
        let file = directory.appendingPathComponent("pw-dump-\(UUID().uuidString.prefix(8)).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let pid = try Self.spawn(["/usr/bin/env", "pw-dump"], environment: environment, output: file.path)
        _ = Self.wait(pid)
        let objects = (try? JSONSerialization.jsonObject(with: Data(contentsOf: file))) as? [[String: Any]] ?? []
        return objects.compactMap { object in
            guard (object["type"] as? String)?.hasSuffix(":Node") == true, let info = object["info"] as? [String: Any] else { return nil }
            return (info["state"] as? String ?? "", info["props"] as? [String: Any] ?? [:])
        }
    }

    /// Waits until `count` nodes whose `application.name` contains `application` run in the
    /// graph (a stream that plays, or a recorder linked to the sink's monitor); no wall-clock
    /// deadline: the suite's time limit ends a wait for a stream that never comes.
    func waitForRunningNode(of application: String, count: Int = 1) {
        Poll.until(every: 20_000) {
            ((try? nodes()) ?? []).filter { node in
                node.state == "running" && (node.properties["application.name"] as? String ?? "").contains(application)
            }.count >= count
        }
    }

    /// Ends a `pw-record` with SIGINT (it then completes the WAV header) and waits for it.
    func finishRecording(_ pid: pid_t) {
        Glibc.kill(pid, SIGINT)
        _ = Self.wait(pid)
    }

    private static func runScript(_ arguments: [String]) throws -> (Int32, String) {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("pulsar-pipewire-script-\(getpid())-\(UUID().uuidString.prefix(8)).log")
        defer { try? FileManager.default.removeItem(at: log) }
        let pid = try spawn(["/bin/bash", scriptPath] + arguments, environment: ProcessInfo.processInfo.environment, output: log.path)
        let status = wait(pid)
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return (status, text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Starts `arguments` with stdin from /dev/null, stdout and stderr to `output`, an empty
    /// signal mask and default dispositions. (Foundation's `Process` passes on the calling
    /// thread's mask, and the threads tests run on block SIGTERM: daemons started that way
    /// ignore a plain `kill`.)
    static func spawn(_ arguments: [String], environment: [String: String], output: String) throws -> pid_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGCHLD, SIGQUIT] {
            sigaddset(&defaults, signal)
        }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw Failure(description: "cannot start \(arguments[0]): \(String(cString: strerror(result)))")
        }
        return pid
    }

    /// Waits for a child; its exit status (128 + signal when killed).
    static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }
}
