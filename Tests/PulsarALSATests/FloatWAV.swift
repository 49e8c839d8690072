import Foundation

/// The samples of a 32-bit float WAV file (format tag 3, or WAVE_FORMAT_EXTENSIBLE with the
/// float subformat), as `pw-record --format f32` writes it. Test-only; reads the whole file.
struct FloatWAV {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    var channels: Int
    var sampleRate: Int
    /// Interleaved samples.
    var samples: [Float]

    init(contentsOf url: URL) throws {
        let data = try Data(contentsOf: url)
        func u16(_ at: Int) -> Int { Int(data[at]) | Int(data[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        guard data.count >= 12, data.prefix(4) == Data("RIFF".utf8), data[8..<12] == Data("WAVE".utf8) else {
            throw Failure(description: "\(url.lastPathComponent): not a RIFF/WAVE file (\(data.count) bytes)")
        }
        var offset = 12
        var format: (tag: Int, channels: Int, rate: Int, bits: Int)?
        var payload: Range<Int>?
        while offset + 8 <= data.count {
            let id = String(decoding: data[offset..<(offset + 4)], as: UTF8.self)
            var size = u32(offset + 4)
            let body = offset + 8
            if id == "data" && (size == 0 || size == 0xFFFF_FFFF || body + size > data.count) {
                size = data.count - body  // header not finalised: the rest of the file
            }
            if id == "fmt " {
                var tag = u16(body)
                if tag == 0xFFFE { tag = u16(body + 24) }  // extensible: the subformat's tag
                format = (tag, u16(body + 2), u32(body + 4), u16(body + 14))
            } else if id == "data" {
                payload = body..<(body + size)
            }
            offset = body + size + (size & 1)
        }
        guard let format, let payload else {
            throw Failure(description: "\(url.lastPathComponent): no fmt or data chunk")
        }
        guard format.tag == 3, format.bits == 32 else {
            throw Failure(description: "\(url.lastPathComponent): format tag \(format.tag), \(format.bits) bits, not 32-bit float")
        }
        channels = format.channels
        sampleRate = format.rate
        let count = payload.count / 4
        samples = [Float](repeating: 0, count: count)
        samples.withUnsafeMutableBytes { target -> Void in
            _ = data.copyBytes(to: target, from: payload.lowerBound..<(payload.lowerBound + count * 4))
        }
    }
}
