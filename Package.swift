// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "pulsar",
    products: [
        .library(name: "PulsarCore", targets: ["PulsarCore"]),
        .library(name: "PulsarAudio", targets: ["PulsarAudio"]),
        .executable(name: "pulsar", targets: ["PulsarCLI"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSndFile",
            pkgConfig: "sndfile",
            providers: [.apt(["libsndfile1-dev"])]
        ),
        .target(name: "PulsarCore"),
        .target(name: "PulsarAudio", dependencies: ["PulsarCore", "CSndFile"]),
        .executableTarget(name: "PulsarCLI", dependencies: ["PulsarCore", "PulsarAudio"]),
        .testTarget(name: "PulsarCoreTests", dependencies: ["PulsarCore"]),
        .testTarget(name: "PulsarAudioTests", dependencies: ["PulsarCore", "PulsarAudio"]),
        .testTarget(name: "PulsarCLITests", dependencies: ["PulsarCLI", "PulsarCore", "PulsarAudio"]),
    ]
)
