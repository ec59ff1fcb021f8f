import Hummingbird

extension Request {
    /// An integer query parameter within bounds, or the default when absent.
    func queryInt(_ name: String, default value: Int, range: ClosedRange<Int>) throws -> Int {
        guard let raw = uri.queryParameters[Substring(name)] else { return value }
        guard let number = Int(raw), range.contains(number) else {
            throw APIError.badRequest("invalid_query", "'\(name)' must be a whole number from \(range.lowerBound) to \(range.upperBound).")
        }
        return number
    }

    func queryString(_ name: String) -> String? {
        uri.queryParameters[Substring(name)].map(String.init)
    }
}
