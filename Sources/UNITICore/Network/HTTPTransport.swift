import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends one HTTP request and waits for the answer. The production transport is URLSession,
/// which on Linux is libcurl underneath (FoundationNetworking); tests use the same transport
/// against a real `uniti-server` on loopback.
public protocol HTTPTransport: Sendable {
    func send(_ request: URLRequest) throws -> (HTTPURLResponse, Data)
}

/// A network failure before any HTTP answer (refused connection, DNS, timeout).
public struct TransportError: Error, CustomStringConvertible, Sendable {
    public let description: String
}

/// URLSession (libcurl on Linux), used synchronously from the shell's thread.
public final class URLSessionTransport: HTTPTransport, Sendable {
    private let session: URLSession

    public init(timeout: TimeInterval = 15) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout * 4
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration)
    }

    public func send(_ request: URLRequest) throws -> (HTTPURLResponse, Data) {
        let semaphore = DispatchSemaphore(value: 0)
        let box = ResultBox()
        let task = session.dataTask(with: request) { data, response, error in
            box.set(data: data, response: response, error: error)
            semaphore.signal()
        }
        task.resume()
        semaphore.wait()
        let (data, response, error) = box.get()
        if let error {
            throw TransportError(description: error.localizedDescription)
        }
        guard let http = response as? HTTPURLResponse else {
            throw TransportError(description: "no HTTP response")
        }
        return (http, data ?? Data())
    }

    private final class ResultBox: @unchecked Sendable {
        private let lock = NSLock()
        private var data: Data?
        private var response: URLResponse?
        private var error: Error?

        func set(data: Data?, response: URLResponse?, error: Error?) {
            lock.withLock { (self.data, self.response, self.error) = (data, response, error) }
        }

        func get() -> (Data?, URLResponse?, Error?) {
            lock.withLock { (data, response, error) }
        }
    }
}
