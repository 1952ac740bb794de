// swift-tools-version: 6.0
import PackageDescription

// The library's own dependency graph is empty: a client resolves no package but this one. The
// demo (Examples/pincode-demo) and the benchmark (Benchmarks) are packages of their own, with
// their own dependencies.
let package = Package(
    name: "StatefulControls",
    products: [
        // The controls: Control, View, events, tracking, notifications, declarative states and
        // the components. Re-exports StatefulEngine: `import StatefulControls` is the one import.
        .library(name: "StatefulControls", targets: ["StatefulControls"]),
        // The engine alone: ControlState, StateDescriptor, custom-state allocation and the
        // StateResolver. Not actor-bound, no Foundation, knows nothing of controls.
        .library(name: "StatefulEngine", targets: ["StatefulEngine"]),
        // Not API: the C resolver and the seeded generator, for the benchmark package.
        .library(name: "_StatefulControlsBenchmarkSupport", targets: ["CStateResolver", "SeededRandom"]),
    ],
    targets: [
        // Judy arrays, from the system (Debian: libjudy-dev, which ships no pkg-config file).
        .systemLibrary(
            name: "CJudy",
            path: "CSources/CJudy",
            providers: [.apt(["libjudy-dev"])]
        ),
        // The resolver's hot path in C over Judy arrays.
        .target(
            name: "CStateResolver",
            dependencies: ["CJudy"],
            path: "CSources/CStateResolver",
            // One translation unit: CStateResolver.c includes the resolver's other .c files (see
            // the comment at its top for why), so SwiftPM compiles it alone.
            sources: ["CStateResolver.c"],
            // The C target includes CJudy.h itself (no Swift import autolinks the module map's
            // `link "Judy"`), so it links the library itself.
            linkerSettings: [.linkedLibrary("Judy")]
        ),
        // Declarations of Swift runtime functions the standard library does not surface.
        .target(name: "CSwiftRuntime", path: "CSources/CSwiftRuntime"),
        .target(
            name: "StatefulEngine",
            dependencies: ["CStateResolver", "CSwiftRuntime"]
        ),
        .target(
            name: "StatefulControls",
            dependencies: ["StatefulEngine"]
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
            dependencies: ["CStateResolver", "CJudyFaultInjection", "SeededRandom", "StatefulEngine"]
        ),
        .testTarget(
            name: "StatefulEngineTests",
            dependencies: ["StatefulEngine", "CJudyFaultInjection"]
        ),
        .testTarget(
            name: "StatefulControlsTests",
            dependencies: ["StatefulControls", "CJudyFaultInjection"]
        ),
        .testTarget(
            name: "StressTests",
            dependencies: ["StatefulControls", "StatefulEngine", "SeededRandom"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
