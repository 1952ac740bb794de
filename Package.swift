// swift-tools-version: 6.0
import PackageDescription

// The library's own dependency graph is empty: a client resolves no package but this one. The
// demo (Examples/pincode-demo) and the benchmark (Benchmarks) are packages of their own, with
// their own dependencies.
let package = Package(
    name: "StatefulControls",
    // Linux is where it is built and tested, on x86_64 (README, "Where it runs"). macOS 14 (for
    // Observation) is declared and takes the portable property access; this project's machines
    // cannot build for it, so it is not tested here.
    platforms: [.macOS(.v14)],
    products: [
        // The controls: Control, View, events, tracking, notifications, declarative states and
        // the components. Re-exports StatefulEngine: `import StatefulControls` is the one import.
        // Lists StatefulEngine too: the binding methods are @inlinable and inline the engine's
        // code into the client's, and SwiftPM rebuilds a client when a module it depends on
        // directly changes, not one beneath it — an optimised build after a change of the
        // engine's inlinable code alone would link the client's stale copy of it.
        .library(name: "StatefulControls", targets: ["StatefulControls", "StatefulEngine"]),
        // The engine alone: ControlState, StateDescriptor, custom-state allocation and the
        // StateResolver. Not actor-bound, no Foundation, knows nothing of controls.
        .library(name: "StatefulEngine", targets: ["StatefulEngine"]),
        // Not API: the C resolver and the seeded generator, for the benchmark package.
        .library(name: "_StatefulControlsBenchmarkSupport", targets: ["CStateResolver", "SeededRandom"]),
    ],
    targets: [
        // Judy arrays, from the system (Debian: libjudy-dev, which ships no pkg-config file;
        // Homebrew: judy).
        .systemLibrary(
            name: "CJudy",
            path: "CSources/CJudy",
            providers: [.apt(["libjudy-dev"]), .brew(["judy"])]
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
        // The direct property access's C part: Swift runtime functions the standard library does
        // not surface, and a call Swift cannot spell. Empty where the direct access is not
        // compiled (its header's gate).
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
        // Test support: classes of another module for the property-kinds differential test.
        .target(name: "PropertyKindsSupport", path: "Tests/PropertyKindsSupport"),
        .testTarget(
            name: "StatefulEngineTests",
            dependencies: ["StatefulEngine", "CJudyFaultInjection", "PropertyKindsSupport", "SeededRandom"]
        ),
        .testTarget(
            name: "StatefulControlsTests",
            dependencies: ["StatefulControls", "CJudyFaultInjection", "SeededRandom"]
        ),
        .testTarget(
            name: "StressTests",
            dependencies: ["StatefulControls", "StatefulEngine", "SeededRandom"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
