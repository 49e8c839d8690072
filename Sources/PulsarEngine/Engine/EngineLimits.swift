/// The bounds of an engine, checked where numbers enter (options, scripts, logs).
public enum EngineLimits {
    /// Most voice slots an engine has: the voice limit plus the slots of voices fading out
    /// after a steal.
    public static let maximumVoices = 256
}
