// swift-tools-version:6.0
// An app that plays haptics with Pulsar: it depends on the package by path and imports one
// module, PulsarSession.
import PackageDescription

let package = Package(
    name: "pulsar-swift-example",
    dependencies: [.package(name: "pulsar", path: "../..")],
    targets: [
        .executableTarget(name: "play-demo", dependencies: [.product(name: "PulsarSession", package: "pulsar")]),
    ]
)
