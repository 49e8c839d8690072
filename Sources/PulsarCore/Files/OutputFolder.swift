#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Folders an output is built in: made, and removed again when the output fails.
public enum OutputFolder {
    /// Makes the folder at `path` and any missing parents (mode 0755); one that exists is fine.
    public static func make(_ path: String) throws(OutputFile.Failure) {
        var built = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            built += "/" + part
            if mkdir(built, 0o755) != 0, errno != EEXIST {
                throw OutputFile.Failure(path: path, message: "cannot make the folder: \(String(cString: strerror(errno)))")
            }
        }
        guard case .directory = InputFile.kind(of: path) else {
            throw OutputFile.Failure(path: path, message: "exists and is not a folder")
        }
    }

    /// Removes `path` and, for a folder, everything in it (links removed, not followed).
    /// Best effort: what cannot be removed stays.
    public static func removeTree(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        if info.st_mode & S_IFMT == S_IFDIR {
            for name in (try? InputFile.names(inFolder: path)) ?? [] { removeTree(path + "/" + name) }
            rmdir(path)
        } else {
            unlink(path)
        }
    }
}
