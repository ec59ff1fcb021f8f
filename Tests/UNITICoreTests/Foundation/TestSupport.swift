import Foundation
@testable import UNITICore

/// A fresh temporary data directory per test, removed by the caller's `defer`.
func makeTemporaryDirectory(_ name: String = "uniti-test") -> String {
    let path = NSTemporaryDirectory() + "\(name)-\(UUID().uuidString)"
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

func removeDirectory(_ path: String) {
    try? FileManager.default.removeItem(atPath: path)
}
