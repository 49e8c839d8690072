/// The bounds of an engine, checked where numbers enter (options, scripts, logs).
public enum EngineLimits {
    /// Most voice slots an engine has: the voice limit plus the slots of voices fading out
    /// after a steal.
    public static let maximumVoices = 256
    /// Largest intensity or master gain (past 1 the haptics go through the limiter).
    public static let maximumGain = 4.0
}
