import PulsarAudio

/// Where each of a layout's channels takes its samples from, for `pulsar follow` and its replay:
/// `H` the follower's output, `L` the sound's first channel, `R` its second (its first when
/// mono), `M` their mean, `0` nothing; a channel naming several takes their sum (in the order
/// the layout names them). Without a sound (`mix` off), `L`, `R` and `M` are silent.
public enum FollowLayout {
    public static func lay(haptic: UnsafeBufferPointer<Float>, sound: UnsafeBufferPointer<Float>?, soundChannels: Int,
                           layout: ChannelLayout, into output: UnsafeMutableBufferPointer<Float>) {
        let outChannels = layout.channelCount
        for f in 0..<haptic.count {
            for (c, sources) in layout.channels.enumerated() {
                var v: Float = 0
                for s in sources {
                    switch s {
                    case .haptic: v += haptic[f]
                    case .left: if let sound { v += sound[f * soundChannels] }
                    case .right: if let sound { v += sound[f * soundChannels + (soundChannels > 1 ? 1 : 0)] }
                    case .mono:
                        if let sound {
                            var sum: Float = 0
                            for k in 0..<soundChannels { sum += sound[f * soundChannels + k] }
                            v += soundChannels == 1 ? sum : sum / Float(soundChannels)
                        }
                    case .silence: break
                    }
                }
                output[f * outChannels + c] = v
            }
        }
    }
}
