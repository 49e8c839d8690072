/// The project's version: what `pulsar --version`, `pulsar_version()` and the packages say.
public enum Pulsar {
    public static let version = "0.1.0"
}
