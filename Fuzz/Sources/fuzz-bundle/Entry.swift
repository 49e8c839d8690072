import FuzzDriver

/// libFuzzer's `main` for the `bundle` target (SwiftPM names an executable's entry `fuzz_bundle_main`).
@_cdecl("fuzz_bundle_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer("bundle", argc, argv)
}
