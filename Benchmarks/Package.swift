// swift-tools-version: 6.0
import PackageDescription

// resolver-bench (`make bench`, `make bench-ir`), a package of its own so that its dependencies
// (swift-argument-parser; the web front end's scene, for the sessions scenario) stay out of the
// library's graph.
let package = Package(
    name: "resolver-bench",
    dependencies: [
        .package(name: "StatefulControls", path: ".."),
        .package(name: "pincode-web", path: "../Examples/pincode-web"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .executableTarget(
            name: "resolver-bench",
            dependencies: [
                "CBenchSupport",
                .product(name: "StatefulControls", package: "StatefulControls"),
                .product(name: "_StatefulControlsBenchmarkSupport", package: "StatefulControls"),
                .product(name: "PinCodeScene", package: "pincode-web"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Raw Judy calls (the JudyLGet baseline) and an allocation counter.
        .target(
            name: "CBenchSupport",
            linkerSettings: [.linkedLibrary("Judy")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
