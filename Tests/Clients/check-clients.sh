#!/usr/bin/env bash
# Two throwaway client packages, made in a temporary folder, depending on this package by path:
#  - one on the StatefulEngine product alone, which builds and resolves values on a thread that
#    is not the main thread;
#  - one on StatefulControls, whose resolved graph must hold no package but this one, and in
#    which a factor registered through its property does not compile.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
swift="${SWIFT:-swift}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# client NAME PRODUCT: a package NAME with one executable depending on PRODUCT of this package.
client() {
    mkdir -p "$work/$1/Sources/$1"
    cat > "$work/$1/Package.swift" <<SWIFT
// swift-tools-version: 6.0
import PackageDescription
let package = Package(
    name: "$1",
    dependencies: [.package(name: "StatefulControls", path: "$root")],
    targets: [.executableTarget(name: "$1", dependencies: [.product(name: "$2", package: "StatefulControls")])]
)
SWIFT
}

client engine-client StatefulEngine
cat > "$work/engine-client/Sources/engine-client/main.swift" <<'SWIFT'
import Foundation
import StatefulEngine

final class Badge { var color = "black" }

// A toolkit's own thread owns the resolver: no main actor, no controls.
let thread = Thread {
    precondition(!Thread.isMainThread)
    let badge = Badge()
    let resolver = StateResolver()
    do {
        try resolver.setValue("blue", for: \.color, of: badge, when: .containing(.selected))
        try resolver.apply(.selected)
        print("off the main thread: \(badge.color), \(resolver.value(for: \.color, of: badge, in: .normal)!)")
    } catch {
        print("error: \(error)")
    }
    exit(badge.color == "blue" ? 0 : 1)
}
thread.start()
while true { sleep(1) }
SWIFT
echo "engine-only client: build and run"
"$swift" build --package-path "$work/engine-client" -q
output="$("$work/engine-client/.build/debug/engine-client")"
echo "  $output"
[ "$output" = "off the main thread: blue, black" ]

client app-client StatefulControls
echo 'import StatefulControls; print(ControlState.selected)' > "$work/app-client/Sources/app-client/main.swift"
echo "library client: resolved packages"
dependencies="$("$swift" package --package-path "$work/app-client" show-dependencies --format flatlist)"
echo "  ${dependencies//$'\n'/, }"
# SwiftPM names a path dependency after its folder: exactly one package, this one.
[ "$dependencies" = "$(basename "$root" | tr 'A-Z' 'a-z')" ] || { echo "a client resolves more than this package"; exit 1; }
# A factor registered through its property, which read it on every evaluation: does not compile,
# and the compiler's message names the factor's spelling.
cat > "$work/app-client/Sources/app-client/main.swift" <<'SWIFT'
import StatefulControls
@MainActor final class Toggle: Control {
    @StateFactor var isOn = false
    init(on: ControlState) {
        super.init()
        register(on, for: \.isOn)
    }
}
SWIFT
echo "library client: register(_:for:) through a factor's property does not compile"
if log="$("$swift" build --package-path "$work/app-client" 2>&1)"; then
    echo "register(on, for: \.isOn) compiled"; exit 1
fi
grep -q 'register(state, for: \$isOn)' <<<"$log" || { echo "$log" | tail -20; echo "the compiler's message does not name \$isOn"; exit 1; }
echo "clients: ok"
