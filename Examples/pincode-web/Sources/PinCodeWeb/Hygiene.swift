import Hummingbird
import NIOCore
import NIOHTTPTypes

/// Which pages may open the WebSocket.
///
/// A browser sends the origin of the page that opens a WebSocket, and lets any page open one to
/// any server: without this check, another site's page could drive a visitor's session here.
///
/// | request's `Origin` | admitted |
/// |---|---|
/// | the page's own: `http://` and the request's `Host` | yes |
/// | one of ``allowed`` (`--allowed-origin`) | yes |
/// | another, or `null` | no: 400, no session |
/// | none, or a `ws:` or `wss:` one | yes: a browser sends its page's origin, never these, so the request is no page's (command-line and library clients) |
public struct OriginPolicy: Sendable {
    /// The origins admitted besides the page's own, as browsers send them (`https://example.org`).
    public let allowed: Set<String>

    /// A policy admitting the page's own origin and `allowed` (scheme, host and port; no path).
    public init(allowing allowed: [String] = []) {
        self.allowed = Set(allowed.map(Self.normalized))
    }

    /// Whether an upgrade request with these `Origin` and `Host` headers may open the WebSocket.
    public func admits(origin: String?, host: String?) -> Bool {
        guard let origin = origin.map(Self.normalized) else { return true }
        if allowed.contains(origin) || origin.hasPrefix("ws://") || origin.hasPrefix("wss://") { return true }
        guard let host, !host.isEmpty else { return false }
        return origin == "http://" + host.lowercased()
    }

    /// Origins compare without case and without a trailing slash.
    static func normalized(_ origin: String) -> String {
        var origin = Substring(origin.lowercased())
        while origin.hasSuffix("/") { origin = origin.dropLast() }
        return String(origin)
    }
}

/// Adds the security headers, and a content type where there is none, to every HTTP response:
/// the router's, its errors', and the one Hummingbird writes itself for a refused WebSocket
/// upgrade (400). A channel handler sees them all; a router middleware would see the router's
/// alone.
final class ResponseHeaders: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// Scripts, styles and connections from the server itself, nothing else; no framing.
    /// `connect-src 'self'` covers the page's `ws:` connection to its own host (CSP level 3).
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    /// The headers every response carries, a WebSocket's upgrade (101) among them.
    static let security: HTTPFields = [.contentSecurityPolicy: contentSecurityPolicy, .xContentTypeOptions: "nosniff"]
    /// The content type of a response that names none (an error's, an empty one's).
    static let defaultContentType = "text/plain; charset=utf-8"

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .head(var head) = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        for field in Self.security { head.headerFields[field.name] = field.value }
        if head.headerFields[.contentType] == nil { head.headerFields[.contentType] = Self.defaultContentType }
        context.write(wrapOutboundOut(.head(head)), promise: promise)
    }
}
