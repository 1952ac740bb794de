// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "StatefulControls",
    products: [
        .library(name: "StatefulControls", targets: ["StatefulControls"]),
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
        // Test support: replaces Judy's JudyMalloc/JudyFree to fail chosen allocations.
        .target(
            name: "CJudyFaultInjection",
            path: "Tests/CJudyFaultInjection"
        ),
        .testTarget(
            name: "CStateResolverTests",
            dependencies: ["CStateResolver", "CJudyFaultInjection"]
        ),
        .testTarget(
            name: "StatefulControlsTests",
            dependencies: ["StatefulControls", "CStateResolver", "CJudyFaultInjection"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
