import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing
import UNITIProtocol
@testable import UNITIServer

@Suite("Security: client addresses", .timeLimit(.minutes(10)))
struct ClientAddressTests {
    @Test("X-Forwarded-For is believed only from a trusted proxy, read from the right; IPv6 counts per /64")
    func forwardedFor() throws {
        let local = try #require(ClientAddress("127.0.0.1"))
        let stranger = try #require(ClientAddress("203.0.113.5"))
        let loopback = TrustedProxies.loopback
        #expect(loopback.client(peer: stranger, forwardedFor: ["198.51.100.1"]) == stranger, "an untrusted peer names no one")
        #expect(loopback.client(peer: local, forwardedFor: []) == local)
        #expect(loopback.client(peer: local, forwardedFor: ["198.51.100.1"])?.text == "198.51.100.1")
        #expect(loopback.client(peer: local, forwardedFor: ["6.6.6.6, 198.51.100.1"])?.text == "198.51.100.1",
                "what the client wrote into the header itself is not believed")
        let chain = try TrustedProxies(parsing: ["loopback", "10.0.0.5"])
        #expect(chain.client(peer: local, forwardedFor: ["198.51.100.1, 10.0.0.5"])?.text == "198.51.100.1")
        #expect(chain.client(peer: local, forwardedFor: ["198.51.100.1", "garbage, 10.0.0.5"])?.text == "10.0.0.5",
                "what lies left of an entry that is no address cannot be checked")
        #expect(TrustedProxies.none.client(peer: local, forwardedFor: ["198.51.100.1"]) == local)
        #expect(TrustedProxies.loopback.client(peer: nil, forwardedFor: ["198.51.100.1"]) == nil)
        #expect(ClientAddress("::ffff:192.0.2.1")?.text == "192.0.2.1")
        #expect(ClientAddress("[2001:db8:1:2:3:4:5:6]")?.throttleKey == "2001:db8:1:2::/64")
        #expect(ClientAddress("::1").map { loopback.trusts($0) } == true)
        #expect(ClientAddress("not an address") == nil)
        #expect(throws: (any Error).self) { try TrustedProxies(parsing: ["proxy.example.org"]) }
        #expect(throws: (any Error).self) { try UNITIServerCommand.parseAsRoot(["serve", "--trusted-proxy", "proxy.example.org"]) }
    }

    @Test("from a peer that is no trusted proxy, a client cannot name itself a new address for every guess")
    func untrustedHeaderIgnored() async throws {
        let server = try TestServer()
        var environment = server.environment
        environment.trustedProxies = .none
        try await runLive(environment) { client in
            for index in 0..<30 {
                let wrong = try await client.json(.post, "/api/v1/account/login", body: LoginRequest(login: "victim\(index)", password: "guess"),
                                                  headers: forwarded("192.0.2.\(index)"))
                #expect(wrong.status == .unauthorized)
            }
            let held = try await client.json(.post, "/api/v1/account/login", body: LoginRequest(login: "victim99", password: "guess"),
                                             headers: forwarded("192.0.2.200"))
            #expect(held.status == .tooManyRequests)
        }
    }
}

// MARK: 6. File modes
