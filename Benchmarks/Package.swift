// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "PulsarBenchmarks",
    dependencies: [.package(name: "pulsar", path: "..")],
    targets: [
        .executableTarget(
            name: "render-throughput",
            dependencies: [
                .product(name: "PulsarCore", package: "pulsar"),
                .product(name: "PulsarAudio", package: "pulsar"),
            ],
            path: "Sources/RenderThroughput"
        ),
        .executableTarget(
            name: "reader-scaling",
            dependencies: [.product(name: "PulsarCore", package: "pulsar"), .product(name: "PulsarCommandLine", package: "pulsar")],
            path: "Sources/ReaderScaling"
        ),
        .executableTarget(
            name: "mix-throughput",
            dependencies: [
                .product(name: "PulsarCore", package: "pulsar"),
                .product(name: "PulsarBundle", package: "pulsar"),
                .product(name: "PulsarAudio", package: "pulsar"),
            ],
            path: "Sources/MixThroughput"
        ),
        .executableTarget(
            name: "drift",
            dependencies: [
                .product(name: "PulsarCore", package: "pulsar"),
                .product(name: "PulsarEngine", package: "pulsar"),
                .product(name: "PulsarSimulation", package: "pulsar"),
            ],
            path: "Sources/Drift"
        ),
        .executableTarget(
            name: "command-latency",
            dependencies: [
                .product(name: "PulsarCore", package: "pulsar"),
                .product(name: "PulsarBundle", package: "pulsar"),
                .product(name: "PulsarAudio", package: "pulsar"),
                .product(name: "PulsarEngine", package: "pulsar"),
                .product(name: "PulsarSimulation", package: "pulsar"),
            ],
            path: "Sources/CommandLatency"
        ),
        .executableTarget(
            name: "live-play",
            dependencies: [
                .product(name: "PulsarCore", package: "pulsar"),
                .product(name: "PulsarBundle", package: "pulsar"),
                .product(name: "PulsarAudio", package: "pulsar"),
                .product(name: "PulsarEngine", package: "pulsar"),
                .product(name: "PulsarALSA", package: "pulsar"),
            ],
            path: "Sources/LivePlay"
        ),
        .target(name: "CRlottieBench", path: "Sources/CRlottieBench", linkerSettings: [.linkedLibrary("rlottie")]),
        .executableTarget(
            name: "lottie-render",
            dependencies: ["CRlottieBench", .product(name: "PulsarLottieRender", package: "pulsar")],
            path: "Sources/LottieRender"
        ),
        .target(name: "CAllocationCounter", path: "Sources/CAllocationCounter"),
        .target(
            name: "BenchSupport",
            dependencies: [
                .product(name: "PulsarCore", package: "pulsar"),
                .product(name: "PulsarBundle", package: "pulsar"),
                .product(name: "PulsarAudio", package: "pulsar"),
            ],
            path: "Sources/BenchSupport"
        ),
        .executableTarget(
            name: "wake-sources",
            dependencies: [
                "BenchSupport",
                .product(name: "PulsarCore", package: "pulsar"),
                .product(name: "PulsarAudio", package: "pulsar"),
                .product(name: "PulsarEngine", package: "pulsar"),
                .product(name: "PulsarALSA", package: "pulsar"),
            ],
            path: "Sources/WakeSources"
        ),
        .executableTarget(
            name: "soak",
            dependencies: [
                "BenchSupport",
                .product(name: "PulsarCore", package: "pulsar"),
                .product(name: "PulsarAudio", package: "pulsar"),
                .product(name: "PulsarEngine", package: "pulsar"),
                .product(name: "PulsarSimulation", package: "pulsar"),
                .product(name: "PulsarALSA", package: "pulsar"),
            ],
            path: "Sources/Soak"
        ),
        .executableTarget(
            name: "rt-allocations",
            dependencies: [
                "CAllocationCounter", "BenchSupport",
                .product(name: "PulsarCore", package: "pulsar"),
                .product(name: "PulsarBundle", package: "pulsar"),
                .product(name: "PulsarAudio", package: "pulsar"),
                .product(name: "PulsarEngine", package: "pulsar"),
                .product(name: "PulsarSimulation", package: "pulsar"),
                .product(name: "PulsarALSA", package: "pulsar"),
            ],
            path: "Sources/RTAllocations"
        ),
        .executableTarget(
            name: "sdl-frame-reference",
            path: "Sources/CSDLFrameReference",
            linkerSettings: [.linkedLibrary("SDL2"), .linkedLibrary("rlottie"), .linkedLibrary("m")]
        ),
        .executableTarget(
            name: "viewer-frames",
            dependencies: ["sdl-frame-reference"],
            path: "Sources/ViewerFrames"
        ),
    ]
)
