// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "StatefulControls",
    products: [
        .library(name: "StatefulControls", targets: ["StatefulControls"]),
        .executable(name: "pincode-demo", targets: ["pincode-demo"]),
        .executable(name: "resolver-bench", targets: ["resolver-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // The resolver's hot path in C over Judy arrays (Debian: libjudy-dev).
        .target(
            name: "CStateResolver",
            path: "CSources/CStateResolver",
            linkerSettings: [.linkedLibrary("Judy")]
        ),
        .target(
            name: "StatefulControls",
            dependencies: ["CStateResolver"]
        ),
        // The terminal PIN-code demo: `make demo`.
        .executableTarget(
            name: "pincode-demo",
            dependencies: [
                "StatefulControls",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The resolver's benchmark: `make bench`, `make bench-ir`.
        .executableTarget(
            name: "resolver-bench",
            dependencies: [
                "CStateResolver", "StatefulControls", "CBenchSupport", "SeededRandom",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Benchmarks/resolver-bench"
        ),
        .target(
            name: "CBenchSupport",
            path: "Benchmarks/CBenchSupport",
            linkerSettings: [.linkedLibrary("Judy")]
        ),
        // Test and benchmark support: a seeded random number generator.
        .target(name: "SeededRandom", path: "Tests/SeededRandom"),
        // Test support: replaces Judy's JudyMalloc/JudyFree to fail chosen allocations.
        .target(
            name: "CJudyFaultInjection",
            path: "Tests/CJudyFaultInjection"
        ),
        .testTarget(
            name: "CStateResolverTests",
            dependencies: ["CStateResolver", "CJudyFaultInjection", "SeededRandom"]
        ),
        .testTarget(
            name: "StatefulControlsTests",
            dependencies: ["StatefulControls", "CStateResolver", "CJudyFaultInjection"]
        ),
        .testTarget(
            name: "StressTests",
            dependencies: ["StatefulControls", "SeededRandom"]
        ),
        .testTarget(
            name: "PinCodeDemoTests",
            dependencies: ["pincode-demo", "StatefulControls"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
