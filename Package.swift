// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "pulsar",
    products: [
        .library(name: "PulsarCore", targets: ["PulsarCore"]),
        .library(name: "PulsarBundle", targets: ["PulsarBundle"]),
        .library(name: "PulsarAudio", targets: ["PulsarAudio"]),
        .library(name: "PulsarEngine", targets: ["PulsarEngine"]),
        .library(name: "PulsarSimulation", targets: ["PulsarSimulation"]),
        .library(name: "PulsarALSA", targets: ["PulsarALSA"]),
        .executable(name: "pulsar", targets: ["PulsarCLI"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSndFile",
            pkgConfig: "sndfile",
            providers: [.apt(["libsndfile1-dev"])]
        ),
        .systemLibrary(
            name: "CZip",
            pkgConfig: "libzip",
            providers: [.apt(["libzip-dev"])]
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
        .target(name: "PulsarCore"),
        .target(name: "PulsarBundle", dependencies: ["PulsarCore", "CZip"]),
        .target(name: "PulsarAudio", dependencies: ["PulsarCore", "PulsarBundle", "CSndFile", "CSoxr"]),
        .target(name: "PulsarEngine", dependencies: ["PulsarCore", "PulsarBundle", "PulsarAudio", "CWakeup"]),
        .target(name: "PulsarSimulation", dependencies: ["PulsarCore", "PulsarEngine"]),
        .target(name: "PulsarTestSupport", dependencies: ["PulsarCore"]),
        .target(name: "PulsarALSA", dependencies: ["PulsarCore", "PulsarEngine", "CAlsa", "CAlsaShim"]),
        .executableTarget(name: "PulsarCLI", dependencies: ["PulsarCore", "PulsarBundle", "PulsarAudio", "PulsarEngine", "PulsarSimulation", "PulsarALSA"]),
        .testTarget(name: "PulsarCoreTests", dependencies: ["PulsarCore", "PulsarTestSupport"]),
        .testTarget(name: "PulsarBundleTests", dependencies: ["PulsarCore", "PulsarBundle", "PulsarTestSupport"]),
        .testTarget(name: "PulsarAudioTests", dependencies: ["PulsarCore", "PulsarBundle", "PulsarAudio", "PulsarTestSupport"]),
        .testTarget(name: "PulsarEngineTests", dependencies: ["PulsarCore", "PulsarEngine", "PulsarSimulation", "PulsarTestSupport"]),
        .testTarget(name: "PulsarCLITests", dependencies: ["PulsarCLI", "PulsarCore", "PulsarBundle", "PulsarAudio", "PulsarEngine", "PulsarSimulation"]),
        .testTarget(name: "PulsarALSATests", dependencies: ["PulsarCore", "PulsarEngine", "PulsarALSA", "PulsarTestSupport"]),
    ]
)
