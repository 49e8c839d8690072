import Foundation
import PulsarFuzzing
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Every input a fuzz target ever found trouble with, kept under `Tests/Fixtures/fuzz/<target>/`,
/// run again through the same entry the fuzz target calls (`FuzzEntry`): each must return, and
/// none may take more than 2 s of CPU (a hang that came back).
@Suite("Fuzz findings replay")
struct FuzzRegressionTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/fuzz").path

    /// (target, file) for every kept finding.
    static let findings: [Finding] = {
        var all: [Finding] = []
        for target in FuzzEntry.targets.keys.sorted() {
            let dir = root + "/" + target
            for name in ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted() where !name.hasPrefix(".") {
                all.append(Finding(target: target, path: dir + "/" + name))
            }
        }
        return all
    }()

    struct Finding: CustomTestStringConvertible, Sendable {
        var target: String
        var path: String
        var testDescription: String { "\(target)/\(URL(fileURLWithPath: path).lastPathComponent)" }
    }

    @Test func everyTargetHasAFolder() {
        for target in FuzzEntry.targets.keys {
            var isDirectory: ObjCBool = false
            #expect(FileManager.default.fileExists(atPath: Self.root + "/" + target, isDirectory: &isDirectory) && isDirectory.boolValue,
                    "Tests/Fixtures/fuzz/\(target) is missing")
        }
    }

    /// `capi` findings go through libpulsar as built beside the tests (`swift build --product
    /// PulsarC`, which `make test` runs first): without it they would replay nothing.
    @Test func theCLibraryIsAtHand() {
        #expect(CAPI.isAvailable, "libPulsarC.so is not beside the test executable (swift build --product PulsarC builds it)")
    }

    @Test(arguments: findings)
    func findingStaysFixed(_ finding: Finding) throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: finding.path)))
        let entry = try #require(FuzzEntry.targets[finding.target])
        let before = Self.cpuSeconds()
        entry(bytes)
        let spent = Self.cpuSeconds() - before
        // Thread CPU time: what this input cost, whatever else the machine runs.
        #expect(spent <= 2, "\(finding.testDescription) took \(spent) s of CPU")
    }

    static func cpuSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
