// swift-tools-version:6.0
import Foundation
import PackageDescription

/// This file's folder: linker flags need absolute paths.
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path

/// lld, with identical functions folded where no address is compared and the relative
/// relocations packed (DT_RELR, glibc 2.36): what keeps the shipped binaries small once the Swift
/// runtime is linked into them (docs/decisions.md, "One file each").
let compactLinkFlags: [String] = ["-use-ld=lld", "-Xlinker", "--gc-sections", "-Xlinker", "--icf=safe", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"]
/// libpulsar: the Swift runtime linked in and kept local, only `pulsar_*` exported, named for the loader.
let exportsMap: String = packageRoot + "/Sources/PulsarC/exports.map"
let libraryOnlyFlags: [String] = ["-Xlinker", "--version-script=" + exportsMap, "-Xlinker", "-soname=libpulsar.so.0"]
let libraryLinkFlags: [String] = ["-static-stdlib"] + compactLinkFlags + libraryOnlyFlags


let package = Package(
    name: "pulsar",
    products: [
        .library(name: "PulsarCore", targets: ["PulsarCore"]),
        .library(name: "PulsarBundle", targets: ["PulsarBundle"]),
        .library(name: "PulsarAudio", targets: ["PulsarAudio"]),
        .library(name: "PulsarEngine", targets: ["PulsarEngine"]),
        .library(name: "PulsarSimulation", targets: ["PulsarSimulation"]),
        .library(name: "PulsarALSA", targets: ["PulsarALSA"]),
        .library(name: "PulsarPipeWire", targets: ["PulsarPipeWire"]),
        .library(name: "PulsarSession", targets: ["PulsarSession"]),
        .library(name: "PulsarLottie", targets: ["PulsarLottie"]),
        .library(name: "PulsarLottieRender", targets: ["PulsarLottieRender"]),
        .library(name: "PulsarLottiePlayer", targets: ["PulsarLottiePlayer"]),
        .library(name: "PulsarViewer", targets: ["PulsarViewer"]),
        .library(name: "PulsarPlot", targets: ["PulsarPlot"]),
        .library(name: "PulsarLint", targets: ["PulsarLint"]),
        .library(name: "PulsarCommandLine", targets: ["PulsarCommandLine"]),
        .library(name: "PulsarDrift", targets: ["PulsarDrift"]),
        .library(name: "PulsarDerive", targets: ["PulsarDerive"]),
        .library(name: "PulsarVideo", targets: ["PulsarVideo"]),
        // The entry points `make fuzz` builds its targets on, and `make test` replays findings through.
        .library(name: "PulsarFuzzing", targets: ["PulsarFuzzing"]),
        // The onset material the benchmarks score aubio on, as the tests score derive.
        .library(name: "PulsarTestMaterial", targets: ["PulsarTestMaterial"]),
        .executable(name: "pulsar", targets: ["PulsarCLI"]),
        // libpulsar for C, C++, C# and Python: include/pulsar.h over these `pulsar_*` symbols.
        .library(name: "PulsarC", type: .dynamic, targets: ["PulsarC"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSndFile",
            pkgConfig: "sndfile",
            providers: [.apt(["libsndfile1-dev"])]
        ),
        // Ogg Vorbis encoding: libsndfile cannot write Android's ANDROID_HAPTIC comment.
        .systemLibrary(
            name: "CVorbis",
            pkgConfig: "vorbisenc",
            providers: [.apt(["libvorbis-dev", "libogg-dev"])]
        ),
        .systemLibrary(
            name: "CZip",
            pkgConfig: "libzip",
            providers: [.apt(["libzip-dev"])]
        ),
        .systemLibrary(
            name: "CMd",
            pkgConfig: "libmd",
            providers: [.apt(["libmd-dev"])]
        ),
        .systemLibrary(
            name: "CSoxr",
            pkgConfig: "soxr",
            providers: [.apt(["libsoxr-dev"])]
        ),
        .systemLibrary(
            name: "CAlsa",
            pkgConfig: "alsa",
            providers: [.apt(["libasound2-dev"])]
        ),
        .target(name: "CAlsaShim", dependencies: ["CAlsa"]),
        .target(name: "CWakeup"),
        .systemLibrary(
            name: "CRlottie",
            pkgConfig: "rlottie",
            providers: [.apt(["librlottie-dev"])]
        ),
        .target(name: "CRlottieShim", dependencies: ["CRlottie"]),
        .systemLibrary(
            name: "CPNG",
            pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"])]
        ),
        .systemLibrary(
            name: "CCairo",
            pkgConfig: "cairo",
            providers: [.apt(["libcairo2-dev"])]
        ),
        // PipeWire's client library. Its pkg-config flags carry -D_REENTRANT, which SwiftPM drops
        // with a warning (glibc needs no such define); only CPipeWireShim includes its headers.
        .systemLibrary(
            name: "CPipeWire",
            pkgConfig: "libpipewire-0.3",
            providers: [.apt(["libpipewire-0.3-dev"])]
        ),
        .target(name: "CPipeWireShim", dependencies: ["CPipeWire"]),
        // A card with profiles exported into a PipeWire graph: the DualSense's twin for the tests.
        .target(name: "CPipeWireCardTwin", dependencies: ["CPipeWire"]),
        // Meta's haptic renderer (its C core, MIT), fed as its SDK feeds it: a reference the
        // actuator-config tests compare this project's renderer against. Tests only.
        .target(name: "CMetaHapticsReference", exclude: ["LICENSE"]),
        // FFmpeg's encoders and muxers (`pulsar video`); only CFFmpegShim includes their headers:
        // their error macros do not import into Swift.
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat",
            providers: [.apt(["libavcodec-dev", "libavformat-dev", "libswscale-dev", "libavutil-dev"])]
        ),
        .target(name: "CFFmpegShim", dependencies: ["CFFmpeg"],
                linkerSettings: [.linkedLibrary("avformat"), .linkedLibrary("avcodec"), .linkedLibrary("swscale"), .linkedLibrary("avutil")]),
        .systemLibrary(
            name: "CSDL2",
            providers: [.apt(["libsdl2-dev"])]
        ),
        .target(name: "PulsarCore"),
        .target(name: "PulsarBundle", dependencies: ["PulsarCore", "CZip", "CMd"]),
        .target(name: "PulsarAudio", dependencies: ["PulsarCore", "PulsarBundle", "CSndFile", "CSoxr", "CVorbis"]),
        .target(name: "PulsarEngine", dependencies: ["PulsarCore", "PulsarBundle", "PulsarAudio", "CWakeup"]),
        .target(name: "PulsarSimulation", dependencies: ["PulsarCore", "PulsarEngine"]),
        // Optimized even in debug builds: its FFT measures whole corpus renders in the tests.
        .target(name: "PulsarTestSupport", dependencies: ["PulsarCore"], swiftSettings: [.unsafeFlags(["-O"])]),
        // Sounds whose onsets are known by construction: the derive tests and the derive benchmark score on them.
        .target(name: "PulsarTestMaterial", dependencies: ["PulsarCore"]),
        .target(name: "PulsarLottie", dependencies: ["PulsarCore", "PulsarBundle"]),
        .target(name: "PulsarLottieRender", dependencies: ["PulsarCore", "PulsarLottie", "CRlottie", "CRlottieShim", "CPNG"]),
        .target(name: "PulsarLottiePlayer", dependencies: ["PulsarCore", "PulsarAudio", "PulsarEngine", "PulsarLottie"]),
        .target(name: "PulsarViewer", dependencies: ["PulsarCore", "PulsarAudio", "PulsarEngine", "PulsarLottie", "PulsarLottieRender", "PulsarLottiePlayer", "PulsarPlot", "CSDL2"]),
        // `pulsar lint` and `pulsar_lint`: what a device cannot do with a design (docs/actuators.md).
        .target(name: "PulsarLint", dependencies: ["PulsarCore"]),
        .target(name: "PulsarPlot", dependencies: ["PulsarCore", "PulsarBundle", "PulsarAudio", "PulsarLottie", "PulsarLint", "CCairo"]),
        .target(name: "PulsarALSA", dependencies: ["PulsarCore", "PulsarEngine", "CAlsa", "CAlsaShim"]),
        .target(name: "PulsarPipeWire", dependencies: ["PulsarCore", "PulsarEngine", "CPipeWireShim"]),
        // What every front end (the CLI, libpulsar) sets a session up with: device specs, defaults,
        // the scheduling policy, one- and two-device engines, what the devices played.
        .target(name: "PulsarSession", dependencies: ["PulsarCore", "PulsarAudio", "PulsarEngine", "PulsarSimulation", "PulsarALSA", "PulsarPipeWire", "PulsarDerive"]),
        .target(name: "PulsarCommandLine", dependencies: ["PulsarCore"]),
        // `pulsar drift`'s and `pulsar latency`'s measurements and figures (docs/drift.md); the
        // latency run reads PipeWire and ALSA captures.
        .target(name: "PulsarDrift", dependencies: ["PulsarCore", "PulsarBundle", "PulsarAudio", "PulsarEngine", "PulsarSimulation", "PulsarALSA", "PulsarPipeWire", "PulsarPlot"]),
        // Haptics from audio (docs/derive.md): the envelope analysis and Android's HapticGenerator.
        .target(name: "PulsarDerive", dependencies: ["PulsarCore", "PulsarBundle", "PulsarAudio"]),
        // `pulsar video`: the frame schedule on the sample clock, the frame sources, the encoder.
        .target(name: "PulsarVideo", dependencies: ["PulsarCore", "PulsarBundle", "PulsarAudio", "PulsarLottie", "PulsarLottieRender", "CFFmpegShim"]),
        .target(name: "PulsarFuzzing", dependencies: ["PulsarCore", "PulsarBundle", "PulsarAudio", "PulsarEngine", "PulsarSimulation", "PulsarLottie", "PulsarCommandLine", "PulsarSession", "PulsarPipeWire", "PulsarLottieRender", "PulsarVideo"]),
        .target(
            name: "PulsarC",
            dependencies: ["PulsarCore", "PulsarBundle", "PulsarAudio", "PulsarEngine", "PulsarSimulation", "PulsarALSA", "PulsarSession", "PulsarDerive", "PulsarLint"],
            exclude: ["exports.map"],
            // Only `pulsar_*` leaves the library, and it names itself for the loader; the Swift
            // runtime is linked in and kept local: the library needs nothing of Swift at run time.
            linkerSettings: [.unsafeFlags(libraryLinkFlags)]
        ),
        // The Makefile links the Swift runtime in (--static-swift-stdlib); lld keeps it small.
        .executableTarget(name: "PulsarCLI", dependencies: ["PulsarCommandLine", "PulsarCore", "PulsarBundle", "PulsarAudio", "PulsarEngine", "PulsarSimulation", "PulsarALSA", "PulsarSession", "PulsarLottie", "PulsarLottieRender", "PulsarLottiePlayer", "PulsarViewer", "PulsarDrift", "PulsarPlot", "PulsarLint", "PulsarDerive", "PulsarPipeWire", "PulsarVideo"],
                          linkerSettings: [.unsafeFlags(compactLinkFlags)]),
        .testTarget(name: "PulsarFuzzingTests", dependencies: ["PulsarFuzzing"]),
        // The C API through `cc`: it needs the built libPulsarC.so, not the module.
        .testTarget(name: "PulsarCTests", dependencies: ["PulsarTestSupport", "PulsarAudio", "PulsarCLI", "PulsarDerive"]),
        .testTarget(name: "PulsarCoreTests", dependencies: ["PulsarCore", "PulsarTestSupport", "CMetaHapticsReference"]),
        .testTarget(name: "PulsarBundleTests", dependencies: ["PulsarCore", "PulsarBundle", "PulsarTestSupport"]),
        .testTarget(name: "PulsarAudioTests", dependencies: ["PulsarCore", "PulsarBundle", "PulsarAudio", "PulsarTestSupport"]),
        .testTarget(name: "PulsarEngineTests", dependencies: ["PulsarCore", "PulsarEngine", "PulsarSimulation", "PulsarTestSupport"]),
        .testTarget(name: "PulsarCLITests", dependencies: ["PulsarCLI", "PulsarCore", "PulsarBundle", "PulsarAudio", "PulsarEngine", "PulsarSimulation", "PulsarLottieRender", "PulsarPlot", "PulsarSession", "PulsarTestSupport"]),
        .testTarget(name: "PulsarLottieTests", dependencies: ["PulsarCore", "PulsarBundle", "PulsarLottie", "PulsarLottieRender", "PulsarTestSupport"]),
        .testTarget(name: "PulsarLottiePlayerTests", dependencies: ["PulsarLottiePlayer", "PulsarCore", "PulsarBundle", "PulsarAudio", "PulsarEngine", "PulsarSimulation", "PulsarLottie", "PulsarTestSupport"]),
        .testTarget(name: "PulsarViewerTests", dependencies: ["PulsarViewer", "CSDL2", "PulsarCore", "PulsarBundle", "PulsarAudio", "PulsarEngine", "PulsarSimulation", "PulsarLottie", "PulsarLottieRender", "PulsarLottiePlayer", "PulsarTestSupport"]),
        .testTarget(name: "PulsarDriftTests", dependencies: ["PulsarCore", "PulsarEngine", "PulsarSimulation", "PulsarDrift", "PulsarTestSupport"]),
        .testTarget(name: "PulsarPlotTests", dependencies: ["PulsarPlot", "PulsarCore", "PulsarBundle", "PulsarAudio", "PulsarLottieRender", "PulsarTestSupport"]),
        .testTarget(name: "PulsarVideoTests", dependencies: ["PulsarVideo", "PulsarCore", "PulsarBundle", "PulsarAudio", "PulsarLottie", "PulsarLottieRender", "PulsarTestSupport"]),
        .testTarget(name: "PulsarDeriveTests", dependencies: ["PulsarDerive", "PulsarCore", "PulsarAudio", "PulsarTestSupport", "PulsarTestMaterial"]),
        .testTarget(name: "PulsarSessionTests", dependencies: ["PulsarSession", "PulsarCore", "PulsarDerive", "PulsarEngine", "PulsarSimulation", "PulsarALSA", "PulsarPipeWire", "PulsarAudio", "PulsarBundle"]),
        .testTarget(name: "PulsarALSATests", dependencies: ["PulsarCore", "PulsarEngine", "PulsarALSA", "PulsarPipeWire", "CPipeWireCardTwin", "PulsarSession", "PulsarSimulation", "PulsarTestSupport"]),
    ]
)
