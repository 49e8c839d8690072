// swift-tools-version:6.0
import PackageDescription

/// Products of the pulsar package, by name.
func pulsar(_ names: String...) -> [Target.Dependency] {
    names.map { .product(name: $0, package: "pulsar") }
}

/// A benchmark executable in `Sources/<folder>`.
func benchmark(_ name: String, _ folder: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(name: name, dependencies: dependencies, path: "Sources/\(folder)")
}

let package = Package(
    name: "PulsarBenchmarks",
    dependencies: [.package(name: "pulsar", path: "..")],
    targets: [
        benchmark("render-throughput", "RenderThroughput", pulsar("PulsarCore", "PulsarAudio")),
        benchmark("reader-scaling", "ReaderScaling", pulsar("PulsarCore", "PulsarSession")),
        benchmark("mix-throughput", "MixThroughput", pulsar("PulsarCore", "PulsarBundle", "PulsarAudio")),
        benchmark("drift", "Drift", pulsar("PulsarCore", "PulsarEngine", "PulsarSimulation")),
        benchmark("command-latency", "CommandLatency",
                  pulsar("PulsarCore", "PulsarBundle", "PulsarAudio", "PulsarEngine", "PulsarSimulation")),
        benchmark("live-play", "LivePlay", ["BenchSupport"] + pulsar("PulsarCore", "PulsarBundle", "PulsarAudio", "PulsarEngine", "PulsarALSA")),
        .target(name: "CRlottieBench", path: "Sources/CRlottieBench", linkerSettings: [.linkedLibrary("rlottie")]),
        benchmark("lottie-render", "LottieRender", ["CRlottieBench"] + pulsar("PulsarLottieRender")),
        .target(name: "CAllocationCounter", path: "Sources/CAllocationCounter"),
        .target(name: "BenchSupport", dependencies: pulsar("PulsarCore", "PulsarBundle", "PulsarAudio"),
                path: "Sources/BenchSupport"),
        benchmark("wake-sources", "WakeSources", ["BenchSupport"] + pulsar("PulsarCore", "PulsarAudio", "PulsarEngine", "PulsarALSA")),
        benchmark("engine-voices", "EngineVoices",
                  ["BenchSupport"] + pulsar("PulsarCore", "PulsarBundle", "PulsarAudio", "PulsarEngine", "PulsarALSA")),
        benchmark("soak", "Soak",
                  ["BenchSupport"] + pulsar("PulsarCore", "PulsarAudio", "PulsarEngine", "PulsarSimulation", "PulsarALSA")),
        benchmark("two-devices", "TwoDevices",
                  ["BenchSupport"] + pulsar("PulsarCore", "PulsarAudio", "PulsarEngine", "PulsarSimulation")),
        benchmark("rt-allocations", "RTAllocations",
                  ["CAllocationCounter", "BenchSupport"]
                      + pulsar("PulsarCore", "PulsarBundle", "PulsarAudio", "PulsarEngine", "PulsarSimulation", "PulsarALSA", "PulsarSession", "PulsarDerive")),
        .executableTarget(
            name: "sdl-frame-reference",
            path: "Sources/CSDLFrameReference",
            linkerSettings: [.linkedLibrary("SDL2"), .linkedLibrary("rlottie"), .linkedLibrary("m")]
        ),
        benchmark("viewer-frames", "ViewerFrames", ["sdl-frame-reference"]),
        benchmark("trigger-latency", "TriggerLatency",
                  ["BenchSupport"] + pulsar("PulsarCore", "PulsarBundle", "PulsarAudio", "PulsarEngine", "PulsarALSA", "PulsarPipeWire", "PulsarDrift")),
        benchmark("follow-clock", "FollowClock", pulsar("PulsarCore", "PulsarAudio", "PulsarEngine", "PulsarSimulation", "PulsarSession", "PulsarDerive")),
        benchmark("derive-throughput", "DeriveThroughput", ["CAllocationCounter"] + pulsar("PulsarCore", "PulsarAudio", "PulsarDerive", "PulsarTestMaterial")),
    ]
)
