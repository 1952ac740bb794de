// swift-tools-version: 6.0
import PackageDescription

// The web front end (`make web`, `make web-test`), a package of its own so that its dependencies
// (Hummingbird and its WebSocket support) stay out of the library's graph.
let package = Package(
    name: "pincode-web",
    platforms: [.macOS(.v14)],
    products: [
        // The scene and its sessions without the server: resolver-bench's sessions scenario
        // measures them (and builds nothing of Hummingbird).
        .library(name: "PinCodeScene", targets: ["PinCodeScene"])
    ],
    dependencies: [
        .package(name: "StatefulControls", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        // Already in Hummingbird's graph: named for the response headers' channel handler
        // (NIOCore, NIOHTTPTypes), the heartbeat's ping frames (NIOWebSocket) and its service.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        // A page's controls, its session (messages in, changes out) and its inspector: the
        // library alone.
        .target(
            name: "PinCodeScene",
            dependencies: [.product(name: "StatefulControls", package: "StatefulControls")]
        ),
        // The server and the page, apart from the executable for the tests.
        .target(
            name: "PinCodeWeb",
            dependencies: [
                "PinCodeScene",
                .product(name: "StatefulControls", package: "StatefulControls"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            resources: [
                .copy("Resources/index.html"), .copy("Resources/page.js"), .copy("Resources/page.css"),
                .copy("Resources/inspector.js"), .copy("Resources/inspector.css"),
            ]
        ),
        .executableTarget(
            name: "pincode-web",
            dependencies: ["PinCodeWeb", .product(name: "Hummingbird", package: "hummingbird")]
        ),
        .testTarget(
            name: "PinCodeWebTests",
            dependencies: [
                "PinCodeScene",
                "PinCodeWeb",
                .product(name: "StatefulControls", package: "StatefulControls"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HummingbirdWSTesting", package: "hummingbird-websocket"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
