import Foundation
import PinCodeScene
import Hummingbird
import HummingbirdWebSocket

/// The HTTP server: the page at `/` (its script and style beside it, and the inspector panel's),
/// the controls over a WebSocket at `/ws`, the server's counts at `/health`.
public enum WebServer {
    /// The largest frame or message a page may send, in bytes (a pointer event is ~80).
    public static let maxMessageSize = 4096
    /// The most messages a connection may send in one second; past it the connection is closed
    /// (a browser sends a pointer move per frame, 60 to 120 a second).
    public static let maxMessagesPerSecond = 500

    /// The page, its script and style and the inspector panel's, by path, with their content
    /// types: loaded once from the package's resources.
    static let files: [String: (contentType: String, body: String)] = [
        "/": ("text/html; charset=utf-8", resource("index.html")),
        "/page.js": ("text/javascript; charset=utf-8", resource("page.js")),
        "/page.css": ("text/css; charset=utf-8", resource("page.css")),
        "/inspector.js": ("text/javascript; charset=utf-8", resource("inspector.js")),
        "/inspector.css": ("text/css; charset=utf-8", resource("inspector.css")),
    ]

    private static func resource(_ name: String) -> String {
        let (base, ext) = (String(name.split(separator: ".")[0]), String(name.split(separator: ".")[1]))
        guard let url = Bundle.module.url(forResource: base, withExtension: ext),
            let text = try? String(contentsOf: url, encoding: .utf8)
        else {
            fatalError("pincode-web: \(name) is missing from the package's resources")
        }
        return text
    }

    /// The application serving on `host`:`port` (port 0 picks a free one). Pages of the
    /// `origins` policy may open the WebSocket; every open one is pinged each `heartbeat`.
    /// `onRunning` is told the port once it listens.
    public static func application(
        host: String = "127.0.0.1", port: Int = 8080, registry: SessionRegistry,
        origins: OriginPolicy = OriginPolicy(), heartbeat: Duration = .seconds(30),
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        // HEAD is answered as GET is, without the body.
        let router = Router(options: .autoGenerateHeadEndpoints)
        for (path, file) in files {
            router.get(RouterPath(path)) { _, _ in
                Response(
                    status: .ok, headers: [.contentType: file.contentType], body: ResponseBody(byteBuffer: ByteBuffer(string: file.body)))
            }
        }
        router.get("/health") { _, _ in
            let health = await Health(of: registry)
            return Response(
                status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: health.json)))
        }
        let pinger = Heartbeat(period: heartbeat)
        // The WebSocket is upgraded by a closure, not by a router's `ws` route, whose request
        // context keeps itself alive, and without hummingbird-websocket's ping loop, whose
        // cancelled sleep outlives its connection until its deadline: the heartbeat pings every
        // connection from one timer (README.md, "Memory per connection").
        let upgrade = HTTP1WebSocketUpgradeChannel.Configuration(
            http1: .init(additionalChannelHandlers: [ResponseHeaders()]),
            ws: .init(maxFrameSize: maxMessageSize, autoPing: .disabled))
        return Application(
            router: router,
            server: .http1WebSocketUpgrade(configuration: upgrade) { head, _, _ in
                guard head.method == .get, head.path?.prefix(while: { $0 != "?" }) == "/ws",
                    origins.admits(origin: head.headerFields[.origin], host: head.authority)
                else { return .dontUpgrade }
                return .upgrade(ResponseHeaders.security) { inbound, outbound, _ in
                    await connection(of: registry, heartbeat: pinger, inbound: inbound, outbound: outbound)
                }
            },
            configuration: .init(address: .hostname(host, port: port), serverName: "pincode-web"),
            services: [pinger],
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) }
        )
    }

    /// One WebSocket connection: a session opened for it, its snapshot sent, its messages
    /// answered, and the session closed when the connection ends.
    static func connection(
        of registry: SessionRegistry, heartbeat: Heartbeat, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter
    ) async {
        let (id, snapshot) = await registry.open()
        do {
            try await outbound.write(.text(snapshot.json))
            await heartbeat.add(id, outbound)  // after the snapshot, which a page expects first
            try await serve(id, of: registry, inbound: inbound, outbound: outbound)
        } catch {
            // The connection failed or was closed for an oversize message: the session ends.
        }
        await heartbeat.remove(id)
        await registry.close(id)
    }

    /// Answers each message of session `id` until the page leaves, sends an oversize message
    /// (closed: message too large) or floods (closed: policy violation).
    static func serve(
        _ id: Int, of registry: SessionRegistry, inbound: WebSocketInboundStream,
        outbound: WebSocketOutboundWriter
    ) async throws {
        var limiter = RateLimiter(limit: maxMessagesPerSecond)
        for try await message in inbound.messages(maxSize: maxMessageSize) {
            guard limiter.admit() else {
                try await outbound.close(.policyViolation, reason: "more than \(maxMessagesPerSecond) messages a second")
                return
            }
            guard case .text(let text) = message else {
                try await outbound.write(.text(ServerMessage.error("binary messages are not accepted: send JSON text").json))
                continue
            }
            for reply in await registry.handle(text, in: id) {
                try await outbound.write(.text(reply.json))
            }
        }
    }
}

/// Counts messages in one-second windows.
struct RateLimiter {
    let limit: Int
    private var windowStart = ContinuousClock.now
    private var count = 0

    init(limit: Int) { self.limit = limit }

    /// Whether one more message fits in the current window.
    mutating func admit() -> Bool {
        let now = ContinuousClock.now
        if now - windowStart >= .seconds(1) { (windowStart, count) = (now, 0) }
        count += 1
        return count <= limit
    }
}
