import Foundation
import Hummingbird
import HummingbirdTesting
import PinCodeScene
import PinCodeWeb
import Testing

/// Every path the server answers, and one it does not.
let servedPaths = ["/", "/page.js", "/page.css", "/inspector.js", "/inspector.css", "/health", "/missing"]

/// A WebSocket upgrade's response, and the first frame after it once one has arrived.
@Sendable func upgraded(_ bytes: [UInt8]) -> Bool {
    guard let response = RawResponse(parsing: bytes) else { return false }
    return response.status != 101 || !response.frames.isEmpty
}

@MainActor
@Suite("Headers, HEAD, the WebSocket's origin, /health and the heartbeat", .serialized)
struct HygieneTests {
    let registry = SessionRegistry()

    private func withServer(
        origins: OriginPolicy = OriginPolicy(), heartbeat: Duration = .seconds(30),
        _ body: @Sendable (any TestClientProtocol, Int) async throws -> Void
    ) async throws {
        let app = WebServer.application(port: 0, registry: registry, origins: origins, heartbeat: heartbeat)
        try await app.test(.live) { client in try await body(client, try #require(client.port)) }
    }

    private static func get(_ path: String, port: Int, method: String = "GET") -> String {
        "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n"
    }

    @Test func everyResponseCarriesTheSecurityHeadersAndAContentType() async throws {
        try await withServer { _, port in
            var responses: [(String, RawResponse)] = []
            for path in servedPaths {
                responses.append((path, try #require(try await RawConnection.exchange(port: port, Self.get(path, port: port)))))
            }
            // A refused upgrade's 400 is written by Hummingbird, not by the router.
            let refused = try await RawConnection.exchange(port: port, upgradeRequest(port: port, origin: "http://evil.example"))
            responses.append(("refused upgrade", try #require(refused)))
            for (what, response) in responses {
                let policy = response.headers["content-security-policy"] ?? ""
                #expect(policy.contains("default-src 'none'") && policy.contains("script-src 'self'"), "\(what): \(policy)")
                #expect(!policy.contains("unsafe-inline"), "\(what)")
                #expect(response.headers["x-content-type-options"] == "nosniff", "\(what)")
                #expect(response.headers["content-type"]?.isEmpty == false, "\(what)")
            }
            #expect(responses.map(\.1.status) == [200, 200, 200, 200, 200, 200, 404, 400])
            #expect(responses[5].1.headers["content-type"] == "application/json")
        }
    }

    @Test func headIsAnsweredAsGetWithoutABody() async throws {
        try await withServer { _, port in
            for path in servedPaths {
                let get = try #require(try await RawConnection.exchange(port: port, Self.get(path, port: port)))
                let head = try #require(try await RawConnection.exchange(port: port, Self.get(path, port: port, method: "HEAD")))
                #expect(head.status == get.status, "\(path)")
                #expect(head.rest.isEmpty, "\(path): HEAD sent \(head.rest.count) bytes of body")
                #expect(head.headers["content-length"] == String(get.rest.count), "\(path)")
                // The same headers but the date, and the health figures' length, which may change.
                let same = { (response: RawResponse) in response.headers.filter { $0.key != "date" && path != "/health" } }
                #expect(same(head) == same(get), "\(path)")
            }
        }
    }

    @Test func theWebSocketAdmitsThePagesOwnOriginAndThoseAllowed() async throws {
        try await withServer(origins: OriginPolicy(allowing: ["https://pincode.example"])) { _, port in
            let cases: [(origin: String?, host: String?, status: Int)] = [
                (nil, nil, 101),  // not a browser
                ("ws://localhost", nil, 101),  // not a browser either (hummingbird-websocket's client)
                ("http://127.0.0.1:\(port)", nil, 101),  // the page's own
                ("HTTP://127.0.0.1:\(port)/", nil, 101),  // the same, spelt otherwise
                ("http://localhost:\(port)", "localhost:\(port)", 101),  // the page's own, by another name
                ("https://pincode.example", nil, 101),  // allowed
                ("http://evil.example", nil, 400),
                ("http://localhost:\(port)", nil, 400),  // another origin than the Host's
                ("null", nil, 400),  // a sandboxed page or a file
            ]
            for (origin, host, status) in cases {
                let opened = await registry.opened
                let response = try #require(
                    await RawConnection(port: port).exchange(upgradeRequest(port: port, origin: origin, host: host), until: upgraded))
                #expect(response.status == status, "Origin \(origin ?? "none"), Host \(host ?? "127.0.0.1")")
                if status == 101 {
                    #expect(response.frames.first?.opcode == 1, "the snapshot comes first")
                } else {
                    #expect(await registry.opened == opened, "a refused page opens no session")
                }
            }
        }
        #expect(try await eventually { registry.live == 0 })
    }

    @Test func theOriginPolicyComparesOriginsAsBrowsersSendThem() {
        let policy = OriginPolicy(allowing: ["https://Pincode.example/"])
        #expect(policy.admits(origin: "https://pincode.example", host: "127.0.0.1:8080"))
        #expect(policy.admits(origin: "http://127.0.0.1:8080", host: "127.0.0.1:8080"))
        #expect(policy.admits(origin: nil, host: nil))
        #expect(policy.admits(origin: "wss://client.example", host: nil), "no browser sends a ws: or wss: origin")
        #expect(!policy.admits(origin: "https://127.0.0.1:8080", host: "127.0.0.1:8080"), "another scheme is another origin")
        #expect(!policy.admits(origin: "http://127.0.0.1:8080", host: nil))
        #expect(!policy.admits(origin: "http://127.0.0.1:8081", host: "127.0.0.1:8080"))
    }

    @Test func healthCountsLiveSessionsConnectionsAndMemory() async throws {
        try await withServer { client, port in
            func health() async throws -> Health {
                try await client.execute(uri: "/health", method: .get) { response in
                    #expect(response.status == .ok)
                    return try JSONDecoder().decode(Health.self, from: Data(String(buffer: response.body).utf8))
                }
            }
            let before = try await health()
            #expect(before.sessions == 0 && before.connections == 0)
            var open: [RawConnection] = []
            for _ in 0..<2 {
                let connection = try RawConnection(port: port)
                _ = await connection.exchange(upgradeRequest(port: port, origin: nil), until: upgraded)
                open.append(connection)
            }
            let during = try await health()
            #expect(during.sessions == 2 && during.connections == 2)
            #expect((during.rssBytes ?? 0) > 1 << 20, "the resident set is at least a megabyte")
            open.removeAll()  // closes both
            #expect(try await eventually { registry.live == 0 })
            let after = try await health()
            #expect(after.sessions == 0 && after.connections == 2)
        }
    }

    @Test func theHeartbeatPingsOpenConnections() async throws {
        try await withServer(heartbeat: .milliseconds(100)) { _, port in
            let response = try #require(
                await RawConnection(port: port).exchange(upgradeRequest(port: port, origin: nil)) { bytes in
                    (RawResponse(parsing: bytes)?.frames.count ?? 0) >= 3
                })
            // The snapshot, then pings (opcode 9), one each period.
            #expect(response.frames.map(\.opcode) == [1, 9, 9])
        }
    }
}
