// swift-tools-version: 6.0
import PackageDescription

// The terminal PIN-code demo (`make demo`), a package of its own so that its dependency
// (swift-argument-parser) stays out of the library's graph.
let package = Package(
    name: "pincode-demo",
    dependencies: [
        .package(name: "StatefulControls", path: "../.."),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .executableTarget(
            name: "pincode-demo",
            dependencies: [
                .product(name: "StatefulControls", package: "StatefulControls"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "PinCodeDemoTests",
            dependencies: ["pincode-demo", .product(name: "StatefulControls", package: "StatefulControls")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
