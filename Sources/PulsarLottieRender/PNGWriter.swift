import CPNG
import PulsarCore
#if canImport(Glibc)
import Glibc
#endif

/// A PNG write or read failure; every case names the file.
public enum PNGError: Error, Equatable, CustomStringConvertible {
    /// libpng refused to encode the image (its message is kept).
    case encodeFailed(path: String, reason: String)
    /// The bytes could not be written or moved into place.
    case writeFailed(path: String, reason: String)
    /// The file could not be opened or decoded (libpng's message is kept).
    case readFailed(path: String, reason: String)
    /// The image is too large for libpng's simplified API (row stride must fit in 31 bits).
    case tooLarge(path: String, width: Int, height: Int)

    public var description: String {
        switch self {
        case let .encodeFailed(path, reason): return "\(path): cannot encode PNG: \(reason)"
        case let .writeFailed(path, reason): return "\(path): cannot write: \(reason)"
        case let .readFailed(path, reason): return "\(path): cannot read PNG: \(reason)"
        case let .tooLarge(path, width, height): return "\(path): image \(width)×\(height) is too large for PNG"
        }
    }
}

/// Writes and reads 8-bit RGBA PNG files through libpng: the only file that calls `png_*`.
///
/// It uses libpng's simplified API (`png_image_*`), which catches libpng's errors inside C
/// (libpng otherwise reports errors by `longjmp`, which must never cross Swift frames).
///
/// Thread rules: stateless; any thread, any number at once (each call has its own `png_image`).
/// Writing the same path from two threads at once leaves one of the two complete files.
public enum PNGWriter {
    /// libpng's `PNG_FORMAT_RGBA` (a macro expression Swift does not import): colour + alpha, 8-bit.
    private static let rgbaFormat = png_uint_32(PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA)

    /// Writes `image` as an 8-bit sRGB RGBA PNG (unpremultiplied, as PNG requires) to `path`,
    /// atomically: the bytes go to a temporary sibling file, which is flushed and renamed over
    /// `path`, so readers see the old file or the complete new one, never a partial one. The
    /// temporary file is removed on failure.
    /// - Throws: `PNGError`, naming `path`.
    public static func write(_ image: ARGB32Image, to path: String) throws {
        try write(rgba: image.unpremultipliedRGBA(), width: image.width, height: image.height, to: path)
    }

    /// Writes straight RGBA bytes (4 per pixel, row-major, `width × height × 4` of them) as an
    /// 8-bit RGBA PNG, atomically as `write(_:to:)` does.
    public static func write(rgba: [UInt8], width: Int, height: Int, to path: String) throws {
        precondition(rgba.count == width * height * 4, "byte count must be width × height × 4")
        let data = try encode(rgba: rgba, width: width, height: height, path: path)
        try writeAtomically(data, to: path)
    }

    /// The PNG encoding of straight RGBA bytes, in memory. `path` only names errors.
    public static func encode(rgba: [UInt8], width: Int, height: Int, path: String = "<memory>") throws -> [UInt8] {
        guard width > 0, height > 0, width <= Int(Int32.max) / 4, height <= Int(Int32.max) else {
            throw PNGError.tooLarge(path: path, width: width, height: height)
        }
        var image = png_image()
        image.version = png_uint_32(PNG_IMAGE_VERSION)
        image.width = png_uint_32(width)
        image.height = png_uint_32(height)
        image.format = rgbaFormat
        let stride = png_int_32(width * 4)
        var size: png_alloc_size_t = 0
        // First call measures, second encodes (libpng frees its state after each).
        let measured = rgba.withUnsafeBytes { png_image_write_to_memory(&image, nil, &size, 0, $0.baseAddress, stride, nil) }
        guard measured != 0, size > 0 else {
            let reason = message(of: image)
            png_image_free(&image)
            throw PNGError.encodeFailed(path: path, reason: reason)
        }
        var output = [UInt8](repeating: 0, count: Int(size))
        let written = output.withUnsafeMutableBytes { out in
            rgba.withUnsafeBytes { png_image_write_to_memory(&image, out.baseAddress, &size, 0, $0.baseAddress, stride, nil) }
        }
        guard written != 0 else {
            let reason = message(of: image)
            png_image_free(&image)
            throw PNGError.encodeFailed(path: path, reason: reason)
        }
        output.removeSubrange(Int(size)...)
        return output
    }

    /// Reads a PNG file of any colour type and depth, converted by libpng to 8-bit straight RGBA.
    /// - Returns: the size and `width × height × 4` bytes, row-major.
    /// - Throws: `PNGError.readFailed` naming `path`.
    public static func readRGBA(from path: String) throws -> (width: Int, height: Int, rgba: [UInt8]) {
        var image = png_image()
        image.version = png_uint_32(PNG_IMAGE_VERSION)
        guard png_image_begin_read_from_file(&image, path) != 0 else {
            let reason = message(of: image)
            png_image_free(&image)
            throw PNGError.readFailed(path: path, reason: reason)
        }
        let width = Int(image.width)
        let height = Int(image.height)
        guard width > 0, height > 0, width <= Int(Int32.max) / 4 else {
            png_image_free(&image)
            throw PNGError.tooLarge(path: path, width: width, height: height)
        }
        image.format = rgbaFormat
        var rgba = [UInt8](repeating: 0, count: width * height * 4)
        let finished = rgba.withUnsafeMutableBytes {
            png_image_finish_read(&image, nil, $0.baseAddress, png_int_32(width * 4), nil)
        }
        guard finished != 0 else {
            let reason = message(of: image)
            png_image_free(&image)
            throw PNGError.readFailed(path: path, reason: reason)
        }
        png_image_free(&image)
        return (width, height, rgba)
    }

    /// Reads a PNG file as a premultiplied ARGB32 image (see `readRGBA(from:)`).
    public static func readImage(from path: String) throws -> ARGB32Image {
        let (width, height, rgba) = try readRGBA(from: path)
        return ARGB32Image(width: width, height: height, unpremultipliedRGBA: rgba)
    }

    private static func message(of image: png_image) -> String {
        let text = withUnsafeBytes(of: image.message) { raw -> String in
            let bytes = raw.prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
        return text.isEmpty ? "libpng reported no message" : text
    }

    /// Writes `bytes` all or nothing through a flushed temporary sibling (`OutputFile.write`).
    private static func writeAtomically(_ bytes: [UInt8], to path: String) throws {
        do {
            try OutputFile.write(bytes, to: path)
        } catch {
            throw PNGError.writeFailed(path: path, reason: error.message)
        }
    }
}
