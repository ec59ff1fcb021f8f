import Foundation

/// Finds the folder of a resource bundle that SwiftPM places next to the executable
/// (`<Package>_<Target>.resources`), without Foundation's `Bundle`, whose set-up was a
/// measurable part of start-up. Returns nil when the folder is not next to the executable; the
/// caller then falls back to its `Bundle.module`.
public func resourceFolderNextToExecutable(_ bundleName: String) -> String? {
    var buffer = [CChar](repeating: 0, count: 4096)
    let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard length > 0 else { return nil }
    let executable = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    guard let slash = executable.lastIndex(of: "/") else { return nil }
    let candidate = String(executable[..<slash]) + "/" + bundleName
    return access(candidate, F_OK) == 0 ? candidate : nil
}
