// swift-tools-version: 6.0
import PackageDescription

// The web front end (`make web`, `make web-test`), a package of its own so that its dependencies
// (Hummingbird and its WebSocket support) stay out of the library's graph.
let package = Package(
    name: "pincode-web",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "StatefulControls", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
    ],
    targets: [
        // The scene, the message format and the server, apart from the executable for the tests.
        .target(
            name: "PinCodeWeb",
            dependencies: [
                .product(name: "StatefulControls", package: "StatefulControls"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
            ],
            resources: [.copy("Resources/index.html"), .copy("Resources/inspector.js"), .copy("Resources/inspector.css")]
        ),
        .executableTarget(
            name: "pincode-web",
            dependencies: ["PinCodeWeb", .product(name: "Hummingbird", package: "hummingbird")]
        ),
        .testTarget(
            name: "PinCodeWebTests",
            dependencies: [
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
