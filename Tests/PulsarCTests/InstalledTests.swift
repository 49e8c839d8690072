import Foundation
import PulsarAudio
import PulsarTestSupport
import Testing

/// What `make install` and `make deb` make, checked as a user meets them: `make test` installs
/// into a temporary prefix (`PULSAR_INSTALL_PREFIX`) and builds the package (`PULSAR_DEB_DIR`)
/// first. The examples are compiled through `pkg-config` against that prefix and run with a bare
/// environment, so nothing of the Swift toolchain is on any search path.
@Suite("Installed")
struct InstalledTests {
    static let environment = ProcessInfo.processInfo.environment
    static let prefix = environment["PULSAR_INSTALL_PREFIX"] ?? ""
    static let debDir = environment["PULSAR_DEB_DIR"] ?? ""
    /// Under CI a missing install is a failure, not a skip.
    static let installed = FileManager.default.fileExists(atPath: prefix + "/bin/pulsar") || environment["CI"] == "true"
    static let packaged = (!debDir.isEmpty && FileManager.default.fileExists(atPath: debDir)) || environment["CI"] == "true"
    static let root = CAPITests.root.path
    /// The environment a program gets: a PATH of system folders and nothing else.
    static let bare = ["PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"]

    /// The folder the running tests load the Swift runtime from: the toolchain's.
    static let toolchainLibraries: String = {
        // Read to the end: /proc reports a size of 0.
        let maps = String(decoding: FileHandle(forReadingAtPath: "/proc/self/maps")?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
        let line = maps.split(separator: "\n").first { $0.hasSuffix("/libswiftCore.so") }
        return line.map { URL(fileURLWithPath: String($0.split(separator: " ").last!)).deletingLastPathComponent().path } ?? "/nonexistent"
    }()

    static func run(_ program: String, _ arguments: [String], environment: [String: String] = bare) throws -> (status: Int32, out: String, err: String) {
        try CAPITests.run(program, arguments, environment: environment)
    }

    /// `cc SOURCE $(pkg-config --cflags --libs pulsar)` against the installed prefix.
    static func compile(_ source: String, to program: String) throws {
        let pc = try run("/usr/bin/pkg-config", ["--cflags", "--libs", "pulsar"], environment: bare.merging(["PKG_CONFIG_PATH": prefix + "/lib/pkgconfig"]) { $1 })
        #expect(pc.status == 0, "pkg-config: \(pc.err)")
        let flags = pc.out.split(whereSeparator: \.isWhitespace).map(String.init)
        #expect(flags.contains("-I\(prefix)/include") && flags.contains("-lpulsar"), "\(flags)")
        let cc = try run("/usr/bin/cc", ["-std=c11", "-Wall", "-Wextra", "-Werror", source, "-o", program] + flags)
        #expect(cc.status == 0, "cc: \(cc.err)")
    }

    /// The shared objects a program or library needs (readelf's NEEDED entries).
    static func needed(_ object: String) throws -> [String] {
        let readelf = try run("/usr/bin/readelf", ["-d", object])
        return readelf.out.split(separator: "\n").compactMap { line in
            guard line.contains("(NEEDED)"), let open = line.firstIndex(of: "["), let close = line.lastIndex(of: "]") else { return nil }
            return String(line[line.index(after: open)..<close])
        }
    }

    @Test("The installed binary and library are self-contained: no Swift library, no ICU of its own, no runtime folder, no RUNPATH; within the size budget (libpulsar <= 8 MiB, pulsar <= 15 MiB, the install <= 25 MiB)",
          .enabled(if: installed, "needs `make install` into PULSAR_INSTALL_PREFIX (make test does it)"))
    func selfContained() throws {
        #expect(FileManager.default.fileExists(atPath: Self.toolchainLibraries + "/libswiftCore.so"), "the toolchain's runtime: \(Self.toolchainLibraries)")
        #expect(!FileManager.default.fileExists(atPath: Self.prefix + "/lib/pulsar"), "a runtime folder was installed")
        for object in [Self.prefix + "/bin/pulsar", Self.prefix + "/lib/libpulsar.so.0"] {
            let ldd = try Self.run("/usr/bin/ldd", [object])
            #expect(ldd.status == 0, "\(ldd)")
            #expect(!ldd.out.contains("not found") && !ldd.out.contains(Self.toolchainLibraries), "\(object): \(ldd.out)")
            for swift in ["libswift", "libFoundation", "lib_Foundation", "libdispatch", "libBlocksRuntime"] {
                #expect(!ldd.out.contains(swift), "\(object) needs \(swift)…: \(ldd.out)")
            }
            // Only system libraries, each resolved under /lib or /usr/lib.
            let needed = try Self.needed(object)
            // No ICU of its own: libpulsar none at all; pulsar only Debian's, which FFmpeg's
            // libavformat and libavcodec load (through libxml2 and libzvbi), never by itself.
            #expect(!needed.contains { $0.hasPrefix("libicu") }, "\(object): \(needed)")
            if object.hasSuffix(".so.0") { #expect(!ldd.out.contains("libicu"), "\(object) needs ICU: \(ldd.out)") }
            #expect(needed.contains("libc.so.6") && needed.count >= 8, "\(object): \(needed)")
            let readelf = try Self.run("/usr/bin/readelf", ["-d", object])
            #expect(!readelf.out.contains("RUNPATH") && !readelf.out.contains("RPATH"), "\(object) keeps a search path: \(readelf.out)")
            let symbols = try Self.run("/usr/bin/nm", ["--dynamic", "--defined-only", object])
            #expect(!symbols.out.contains("ucol_") && !symbols.out.contains("ubrk_"), "\(object) carries ICU")
        }
        // libpulsar exports exactly the header's functions, nothing of Swift.
        let exported = try Self.run("/usr/bin/nm", ["--dynamic", "--defined-only", Self.prefix + "/lib/libpulsar.so.0"]).out
            .split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) }
        #expect(!exported.isEmpty && exported.allSatisfy { $0.hasPrefix("pulsar_") }, "\(exported.filter { !$0.hasPrefix("pulsar_") }.prefix(5))")
        let mib = 1 << 20
        let library = try FileManager.default.attributesOfItem(atPath: Self.prefix + "/lib/libpulsar.so.0")[.size] as? Int ?? .max
        let binary = try FileManager.default.attributesOfItem(atPath: Self.prefix + "/bin/pulsar")[.size] as? Int ?? .max
        #expect(library <= 8 * mib, "libpulsar.so: \(library) bytes")
        #expect(binary <= 15 * mib, "pulsar: \(binary) bytes")
        let du = try Self.run("/usr/bin/du", ["-sb", Self.prefix])
        let total = Int(du.out.split(separator: "\t").first ?? "") ?? .max
        #expect(total <= 25 * mib, "the install: \(total) bytes")
        let version = try Self.run(Self.prefix + "/bin/pulsar", ["--version"])
        #expect(version.status == 0 && version.out.hasPrefix("pulsar "), "\(version)")
        let pc = try Self.run("/usr/bin/pkg-config", ["--modversion", "pulsar"], environment: Self.bare.merging(["PKG_CONFIG_PATH": Self.prefix + "/lib/pkgconfig"]) { $1 })
        #expect("pulsar " + pc.out.trimmingCharacters(in: .whitespacesAndNewlines) == version.out.trimmingCharacters(in: .whitespacesAndNewlines))
        // The shipped actuator configs are found beside the installed binary (PREFIX/share/pulsar/actuators).
        let actuators = try Self.run(Self.prefix + "/bin/pulsar", ["actuators"], environment: Self.bare)
        #expect(actuators.status == 0 && actuators.out.contains("meta-console") && actuators.out.contains("meta-quest")
                && actuators.out.contains("dualsense") && actuators.out.contains("bass-shaker"), "\(actuators)")
    }

    @Test("render.c built with pkg-config against the prefix and run with a bare environment writes what the installed `pulsar render` writes, bit for bit",
          .enabled(if: installed, "needs `make install` into PULSAR_INSTALL_PREFIX (make test does it)"))
    func renderThroughPkgConfig() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let render = dir.file("render")
        try Self.compile(Self.root + "/examples/c/render.c", to: render)
        let ldd = try Self.run("/usr/bin/ldd", [render])
        #expect(ldd.out.contains(Self.prefix + "/lib/libpulsar.so.0") && !ldd.out.contains(Self.toolchainLibraries), "\(ldd.out)")
        let pattern = Self.root + "/Resources/patterns/demo.json"
        let c = dir.file("c.wav"), cli = dir.file("cli.wav")
        let r = try Self.run(render, [pattern, c, "--layout", "L+H,R+H,0", "--rate", "44100"])
        #expect(r.status == 0, "\(r)")
        let p = try Self.run(Self.prefix + "/bin/pulsar", ["render", pattern, "--layout", "L+H,R+H,0", "--rate", "44100", "-o", cli, "--quiet"])
        #expect(p.status == 0, "\(p)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: c)) == Data(contentsOf: URL(fileURLWithPath: cli)))
    }

    /// Runs a game-like program (game.c or demo.py) on `device` with `--log`; checks its lines and,
    /// when it recorded, that the recording is what the installed `pulsar render --replay` makes
    /// of the log, bit for bit.
    static func checkGame(_ command: [String], device: String, recording: String?, log: String, environment: [String: String]) throws {
        let r = try run(command[0], Array(command.dropFirst()) + ["--device", device, "--log", log], environment: environment)
        #expect(r.status == 0, "\(command.last!) on \(device): \(r)")
        #expect(r.out.components(separatedBy: "played out").count - 1 == 4 && r.out.contains("done: 4 effects"), "\(r.out)")
        let replay = log + ".wav"
        let p = try run(prefix + "/bin/pulsar", ["render", "--replay", log, "-o", replay, "--quiet"])
        #expect(p.status == 0, "\(p)")
        let replayed = try AudioFileContents(contentsOf: replay)
        #expect(replayed.channels == 1 && replayed.samples.contains { abs($0) > 0.1 }, "the replay holds the rumble and the effects")
        if let recording {
            #expect(try Data(contentsOf: URL(fileURLWithPath: recording)) == Data(contentsOf: URL(fileURLWithPath: replay)),
                    "\(command.last!): the recording equals the CLI's replay of the session's log")
        }
    }

    @Test("game.c (pkg-config, bare environment) and demo.py (the installed library on LD_LIBRARY_PATH) on the simulated device: overlapping voices with a live curve, a recording equal to the CLI's replay of their log",
          .enabled(if: installed && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs `make install` into PULSAR_INSTALL_PREFIX and python3"))
    func gamesOnTheSimulatedDevice() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let game = dir.file("game")
        try Self.compile(Self.root + "/examples/c/game.c", to: game)
        try Self.checkGame([game], device: "sim:record=" + dir.file("g.wav"), recording: dir.file("g.wav"), log: dir.file("g.jsonl"), environment: Self.bare)
        // demo.py as installed with the docs, the package as installed beside the library.
        let demo = Self.prefix + "/share/doc/pulsar/examples/python/demo.py"
        let python = Self.bare.merging(["LD_LIBRARY_PATH": Self.prefix + "/lib", "PYTHONPATH": Self.prefix + "/lib/python3/dist-packages"]) { $1 }
        try Self.checkGame(["/usr/bin/python3", demo], device: "sim:record=" + dir.file("p.wav"), recording: dir.file("p.wav"), log: dir.file("p.jsonl"),
                           environment: python)
    }

    /// mono's compiler and runtime (Debian's mono-mcs, mono-runtime); under CI their absence fails.
    static let mono = (FileManager.default.isExecutableFile(atPath: "/usr/bin/mcs") && FileManager.default.isExecutableFile(atPath: "/usr/bin/mono"))
        || environment["CI"] == "true"

    @Test("Game.cs built with mcs from bindings/csharp/Pulsar.cs alone and run with mono against the installed library: the game's session on the simulated device, its recording equal to the CLI's replay of its log; a device that cannot open is one line and exit 1",
          .enabled(if: installed && mono, "needs `make install` into PULSAR_INSTALL_PREFIX and mono (mono-mcs, mono-runtime)"))
    func csharpGame() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let exe = dir.file("game.exe")
        let mcs = try Self.run("/usr/bin/mcs", ["-warnaserror+", "-out:" + exe, Self.root + "/bindings/csharp/Pulsar.cs", Self.root + "/examples/csharp/Game.cs"])
        #expect(mcs.status == 0, "mcs: \(mcs)")
        let environment = Self.bare.merging(["LD_LIBRARY_PATH": Self.prefix + "/lib", "HOME": dir.path]) { $1 }
        try Self.checkGame(["/usr/bin/mono", exe], device: "sim:record=" + dir.file("cs.wav"), recording: dir.file("cs.wav"), log: dir.file("cs.jsonl"),
                           environment: environment)
        let bad = try Self.run("/usr/bin/mono", [exe, "--device", "no-such-pcm"], environment: environment)
        #expect(bad.status == 1 && bad.err.hasPrefix("game: ") && bad.err.contains("no-such-pcm") && !bad.err.contains("Exception"), "\(bad)")
        // Bad calls throw their code's exception; a render is the CLI's, sample for sample.
        let checks = dir.file("checks.exe")
        let built = try Self.run("/usr/bin/mcs", ["-warnaserror+", "-out:" + checks, Self.root + "/bindings/csharp/Pulsar.cs", Self.root + "/Tests/Fixtures/csharp/Checks.cs"])
        #expect(built.status == 0, "mcs: \(built)")
        let pattern = Self.root + "/Resources/patterns/demo.json"
        let r = try Self.run("/usr/bin/mono", [checks, dir.file("c.f32"), pattern], environment: environment)
        #expect(r.status == 0 && r.out.contains("all checks passed") && !r.out.contains("FAIL"), "\(r)")
        let cli = try Self.run(Self.prefix + "/bin/pulsar", ["render", pattern, "-o", dir.file("cli.wav"), "--quiet"])
        #expect(cli.status == 0, "\(cli)")
        let raw = try Data(contentsOf: URL(fileURLWithPath: dir.file("c.f32")))
        let samples = raw.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let reference = try AudioFileContents(contentsOf: dir.file("cli.wav"))
        #expect(!samples.isEmpty && samples == reference.samples, "C# render: \(samples.count) samples, the CLI's \(reference.samples.count)")
    }

    @Test("game.c and demo.py on the PipeWire session: the same work on a real sound server, the log replaying",
          .enabled(if: installed && environment["PIPEWIRE_RUNTIME_DIR"] != nil, "needs the PipeWire session make test starts"))
    func gamesOnPipeWire() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        var session = Self.bare
        for name in ["XDG_RUNTIME_DIR", "PIPEWIRE_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS"] { session[name] = Self.environment[name] }
        let game = dir.file("game")
        try Self.compile(Self.root + "/examples/c/game.c", to: game)
        try Self.checkGame([game], device: "pipewire", recording: nil, log: dir.file("g.jsonl"), environment: session)
        let demo = Self.prefix + "/share/doc/pulsar/examples/python/demo.py"
        try Self.checkGame(["/usr/bin/python3", demo], device: "pipewire", recording: nil, log: dir.file("p.jsonl"),
                           environment: session.merging(["LD_LIBRARY_PATH": Self.prefix + "/lib", "PYTHONPATH": Self.prefix + "/lib/python3/dist-packages"]) { $1 })
    }

    @Test("Man pages read with man -l, one per command; the completions are installed; the manifest lists every file under the prefix",
          .enabled(if: installed, "needs `make install` into PULSAR_INSTALL_PREFIX (make test does it)"))
    func pagesCompletionsManifest() throws {
        let man1 = Self.prefix + "/share/man/man1"
        let main = try Self.run("/usr/bin/man", ["-l", man1 + "/pulsar.1"], environment: Self.bare.merging(["MANWIDTH": "120", "MANPAGER": "cat", "PAGER": "cat"]) { $1 })
        #expect(main.status == 0 && main.out.contains("pulsar-render"), "\(main.err)")
        let help = try Self.run(Self.prefix + "/bin/pulsar", ["--help"])
        let commands = help.out.split(separator: "\n", omittingEmptySubsequences: false).drop { $0 != "commands:" }.dropFirst().prefix { !$0.isEmpty }.map { String($0.split(separator: " ")[0]) }
        #expect(commands.count >= 11, "\(help.out)")
        for command in commands {
            #expect(FileManager.default.fileExists(atPath: "\(man1)/pulsar-\(command).1"), "no page for \(command)")
        }
        let bash = Self.prefix + "/share/bash-completion/completions/pulsar"
        #expect(try Self.run("/bin/bash", ["-n", bash]).status == 0)
        #expect(FileManager.default.fileExists(atPath: Self.prefix + "/share/zsh/site-functions/_pulsar"))
        // Every file (and link) under the prefix is in the manifest, and every entry is there.
        let manifest = try String(contentsOfFile: Self.prefix + "/share/pulsar/install-manifest", encoding: .utf8)
            .split(separator: "\n").map(String.init)
        let find = try Self.run("/usr/bin/find", [Self.prefix, "(", "-type", "f", "-o", "-type", "l", ")", "-printf", "%P\n"])
        #expect(Set(find.out.split(separator: "\n").map(String.init)) == Set(manifest))
    }

    @Test("make install with DESTDIR puts the files under DESTDIR/PREFIX, naming PREFIX; uninstall removes them all and keeps what was there before",
          .enabled(if: installed, "needs the release build make test makes"))
    func destdirAndUninstall() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let stage = dir.file("stage"), prefix = "/opt/pulsar-test"
        let root = stage + prefix
        try FileManager.default.createDirectory(atPath: root + "/lib", withIntermediateDirectories: true)
        _ = try dir.write("someone else's", to: "stage/opt/pulsar-test/lib/keep.txt")
        let install = try Self.run("/bin/bash", [Self.root + "/scripts/install.sh", "install", Self.root + "/.build/release", prefix, stage],
                                   environment: Self.bare)
        #expect(install.status == 0, "\(install)")
        #expect(FileManager.default.isExecutableFile(atPath: root + "/bin/pulsar"))
        let pc = try String(contentsOfFile: root + "/lib/pkgconfig/pulsar.pc", encoding: .utf8)
        #expect(pc.contains("prefix=\(prefix)\n") && !pc.contains(stage), "\(pc)")
        #expect(!FileManager.default.fileExists(atPath: prefix), "nothing is written outside DESTDIR")
        let uninstall = try Self.run("/bin/bash", [Self.root + "/scripts/install.sh", "uninstall", prefix, stage], environment: Self.bare)
        #expect(uninstall.status == 0, "\(uninstall)")
        let left = try Self.run("/usr/bin/find", [stage, "-mindepth", "1", "-printf", "%P\n"])
        #expect(Set(left.out.split(separator: "\n").map(String.init)) == ["opt", "opt/pulsar-test", "opt/pulsar-test/lib", "opt/pulsar-test/lib/keep.txt"],
                "\(left.out)")
        let again = try Self.run("/bin/bash", [Self.root + "/scripts/install.sh", "uninstall", prefix, stage], environment: Self.bare)
        #expect(again.status != 0 && again.err.contains("install-manifest is missing"), "\(again)")
    }

    @Test("make deb: the package lists the files, depends on the package of every library it links, and its binary runs unpacked",
          .enabled(if: packaged, "needs the package make test builds into PULSAR_DEB_DIR"))
    func debianPackage() throws {
        let debs = try FileManager.default.contentsOfDirectory(atPath: Self.debDir).filter { $0.hasSuffix(".deb") }
        #expect(debs.count == 1, "\(debs)")
        guard let name = debs.first else { return }
        let deb = Self.debDir + "/" + name
        let contents = try Self.run("/usr/bin/dpkg-deb", ["--contents", deb])
        // `MODE OWNER SIZE DATE TIME ./PATH [-> TARGET]`
        let paths = Set(contents.out.split(separator: "\n").compactMap { line -> String? in
            let f = line.split(separator: " ", omittingEmptySubsequences: true)
            return f.count >= 6 ? String(f[5].dropFirst()) : nil
        })
        for expected in ["/usr/bin/pulsar", "/usr/lib/libpulsar.so.0", "/usr/lib/libpulsar.so", "/usr/include/pulsar.h", "/usr/lib/pkgconfig/pulsar.pc",
                         "/usr/share/man/man1/pulsar.1.gz", "/usr/share/man/man1/pulsar-play.1.gz",
                         "/usr/share/bash-completion/completions/pulsar", "/usr/share/zsh/vendor-completions/_pulsar",
                         "/usr/share/doc/pulsar/README.md", "/usr/share/doc/pulsar/examples/c/game.c", "/usr/lib/python3/dist-packages/pulsar/__init__.py"] {
            #expect(paths.contains(expected), "\(expected) is not in the package")
        }
        #expect(!paths.contains { $0.hasPrefix("/usr/lib/pulsar/") }, "the package ships a runtime folder")
        let size = try FileManager.default.attributesOfItem(atPath: deb)[.size] as? Int ?? .max
        #expect(size <= 8 << 20, "\(name): \(size) bytes")
        let dir = try Scratch()
        defer { dir.remove() }
        #expect(try Self.run("/usr/bin/dpkg-deb", ["-x", deb, dir.path]).status == 0)
        let version = try Self.run(dir.file("usr/bin/pulsar"), ["--version"])
        #expect(version.status == 0 && version.out.hasPrefix("pulsar "), "\(version)")
        // Depends: for every library the binary and libpulsar link, the Debian package dpkg says
        // holds it.
        let depends = try Self.run("/usr/bin/dpkg-deb", ["--field", deb, "Depends"]).out
        let named = Set(depends.split(separator: ",").map { String($0.trimmingCharacters(in: .whitespaces).split(separator: " ")[0]) })
        for object in [dir.file("usr/bin/pulsar"), dir.file("usr/lib/libpulsar.so.0")] {
            let ldd = try Self.run("/usr/bin/ldd", [object])
            let system = ldd.out.split(separator: "\n").compactMap { line -> String? in
                let f = line.split(separator: " ")
                guard f.count >= 3, f[1] == "=>", f[2].hasPrefix("/"), !f[2].hasPrefix(dir.path) else { return nil }
                return String(f[2])
            }
            #expect(system.count > 10, "\(ldd.out)")
            // Only the libraries the object itself needs (NEEDED); ldd also lists their dependencies.
            let needed = try Self.run("/usr/bin/readelf", ["-d", object]).out
            var checked = 0
            for library in system where needed.contains("[\(URL(fileURLWithPath: library).lastPathComponent)]") {
                // dpkg knows a file by the path its package ships (/lib or /usr/lib: merged /usr).
                let real = URL(fileURLWithPath: library).resolvingSymlinksInPath().path
                var owner = try Self.run("/usr/bin/dpkg", ["-S", real])
                if owner.status != 0 { owner = try Self.run("/usr/bin/dpkg", ["-S", library]) }
                if owner.status != 0 { owner = try Self.run("/usr/bin/dpkg", ["-S", real.replacingOccurrences(of: "/usr/lib/", with: "/lib/")]) }
                #expect(owner.status == 0, "no package holds \(library)")
                guard owner.status == 0 else { continue }
                checked += 1
                let package = String(owner.out.split(separator: ":")[0])
                #expect(named.contains(package), "\(object) links \(library) of \(package), not in Depends: \(depends)")
            }
            #expect(checked >= 8, "\(object): \(checked) system libraries checked")
        }
        #expect(named.contains("libc6"), "\(depends)")
    }
}
