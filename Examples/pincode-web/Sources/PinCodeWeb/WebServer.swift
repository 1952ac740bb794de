import Foundation
import PinCodeScene
import Hummingbird
import HummingbirdWebSocket

/// The HTTP server: the page at `/` (its inspector panel's script and style beside it), the
/// controls over a WebSocket at `/ws`.
public enum WebServer {
    /// The largest frame or message a page may send, in bytes (a pointer event is ~80).
    public static let maxMessageSize = 4096
    /// The most messages a connection may send in one second; past it the connection is closed
    /// (a browser sends a pointer move per frame, 60 to 120 a second).
    public static let maxMessagesPerSecond = 500

    /// The page and the inspector panel's script and style, by path, with their content types:
    /// loaded once from the package's resources.
    static let files: [String: (contentType: String, body: String)] = [
        "/": ("text/html; charset=utf-8", resource("index.html")),
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

    /// The application serving on `host`:`port` (port 0 picks a free one); `onRunning` is
    /// told the port once it listens.
    public static func application(
        host: String = "127.0.0.1", port: Int = 8080, registry: SessionRegistry,
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let router = Router()
        for (path, file) in files {
            router.get(RouterPath(path)) { _, _ in
                Response(
                    status: .ok, headers: [.contentType: file.contentType], body: ResponseBody(byteBuffer: ByteBuffer(string: file.body)))
            }
        }
        let webSocketRouter = Router(context: BasicWebSocketRequestContext.self)
        webSocketRouter.ws("/ws") { inbound, outbound, _ in
            let (id, snapshot) = await registry.open()
            do {
                try await outbound.write(.text(snapshot.json))
                try await serve(id, of: registry, inbound: inbound, outbound: outbound)
            } catch {
                // The connection failed or was closed for an oversize message: the session ends.
            }
            await registry.close(id)
        }
        return Application(
            router: router,
            server: .http1WebSocketUpgrade(
                webSocketRouter: webSocketRouter,
                configuration: .init(ws: .init(maxFrameSize: maxMessageSize))),
            configuration: .init(address: .hostname(host, port: port), serverName: "pincode-web"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) }
        )
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
