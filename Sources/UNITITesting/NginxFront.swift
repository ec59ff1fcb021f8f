import Foundation

/// A real nginx in front of several `uniti-server` processes, as a multi-centre study would run
/// them (Documentation/uniti-server.md, "Several server processes"): one loopback port, requests
/// shared round-robin among the upstream ports. Each response names the process that served it
/// in `X-Upstream` (`127.0.0.1:PORT`), so a test can see that both served.
///
/// nginx runs from a temporary prefix directory with its own configuration, pid file and logs;
/// ``stop()`` (also at deinit, and by a watchdog if the test process is killed) ends it. Debian's
/// `nginx` package provides the program (`Scripts/bootstrap --tests` installs it); without it the
/// test fails naming the script, it is never skipped.
public final class NginxFront: @unchecked Sendable {
    public struct Missing: Error, CustomStringConvertible {
        public let description: String
    }

    public let port: Int
    public let directory: String
    private let program: String
    private let lock = NSLock()
    private var stopped = false

    public init(upstreams: [Int]) throws {
        guard let program = ["/usr/sbin/nginx", "/usr/bin/nginx"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw Missing(description: "nginx is not installed: run Scripts/bootstrap --tests (it installs nginx)")
        }
        self.program = program
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("uniti-nginx-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        directory = base.path
        port = Int(try LoopbackListener().port)
        // Under root the workers run as root too, so they can use the temporary directory.
        let user = getuid() == 0 ? "user root;\n" : ""
        let servers = upstreams.map { "        server 127.0.0.1:\($0);" }.joined(separator: "\n")
        let configuration = """
            \(user)worker_processes 1;
            pid \(directory)/nginx.pid;
            error_log \(directory)/error.log warn;
            events { worker_connections 256; }
            http {
                access_log off;
                client_body_temp_path \(directory)/body;
                proxy_temp_path \(directory)/proxy;
                fastcgi_temp_path \(directory)/fastcgi;
                uwsgi_temp_path \(directory)/uwsgi;
                scgi_temp_path \(directory)/scgi;
                upstream uniti {
            \(servers)
                    keepalive 16;
                }
                server {
                    listen 127.0.0.1:\(port);
                    location / {
                        proxy_pass http://uniti;
                        proxy_http_version 1.1;
                        proxy_set_header Connection "";
                        proxy_set_header Host $host;
                        proxy_set_header X-Forwarded-Proto $scheme;
                        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
                        add_header X-Upstream $upstream_addr always;
                    }
                }
            }

            """
        try configuration.write(toFile: directory + "/nginx.conf", atomically: true, encoding: .utf8)
        try ServerProgram.run([program, "-p", directory, "-e", directory + "/error.log", "-c", directory + "/nginx.conf"])
        ServerProgram.watchOverThisProcess(stop: "\(program) -p '\(directory)' -e /dev/null -c '\(directory)/nginx.conf' -s stop; rm -rf '\(directory)'")
    }

    /// Stops nginx and removes its files; safe to call twice.
    public func stop() {
        let first = lock.withLock {
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        _ = try? ServerProgram.run([program, "-p", directory, "-e", directory + "/error.log", "-c", directory + "/nginx.conf", "-s", "stop"])
        try? FileManager.default.removeItem(atPath: directory)
    }

    deinit { stop() }
}
