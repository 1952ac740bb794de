#!/usr/bin/env bash
# Three throwaway client packages, made in a temporary folder, depending on this package by path:
#  - one on the StatefulEngine product alone, which builds and resolves values on a thread that
#    is not the main thread;
#  - one on StatefulControls, whose resolved graph must hold no package but this one, and in
#    which a factor registered through its property does not compile;
#  - docs/install.md's: its Package.swift and main.swift as the page shows them, the package's
#    URL replaced by a path to this clone (there is no network), built and run;
#  - a plug-in: a dynamic library on StatefulControls, loaded with dlopen by a C program (no
#    Swift of its own): the direct access's thread-local word (initial-exec) then comes from the
#    static TLS that is left, its self-check runs in the loaded library, and a write that
#    overlaps an access still stops with Swift's message.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
swift="${SWIFT:-swift}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# client NAME PRODUCT [dynamic]: a package NAME with one executable depending on PRODUCT of this
# package; with `dynamic`, one dynamic library (libNAME.so) instead.
client() {
    mkdir -p "$work/$1/Sources/$1"
    local target=executableTarget products=""
    if [ "${3:-}" = dynamic ]; then
        target=target
        products="products: [.library(name: \"$1\", type: .dynamic, targets: [\"$1\"])],"
    fi
    cat > "$work/$1/Package.swift" <<SWIFT
// swift-tools-version: 6.0
import PackageDescription
let package = Package(
    name: "$1",
    $products
    dependencies: [.package(name: "StatefulControls", path: "$root")],
    targets: [.$target(name: "$1", dependencies: [.product(name: "$2", package: "StatefulControls")])]
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
# snippet FILE: the swift code block that follows docs/install.md's marker for FILE.
snippet() {
    awk -v marker="<!-- make clients: $1 -->" '
        $0 == marker { found = 1; next }
        found && /^```swift$/ { inside = 1; next }
        inside && /^```$/ { exit }
        inside { print }' "$root/docs/install.md"
}
echo "docs/install.md's client: build and run"
url='.package(url: "https://github.com/statefulcontrols/StatefulControls.git", from: "0.1.0")'
manifest="$(snippet Package.swift)"
main="$(snippet Sources/MyApp/main.swift)"
grep -qF "$url" <<<"$manifest" || { echo "docs/install.md's Package.swift does not depend on $url"; exit 1; }
[ -n "$main" ] || { echo "docs/install.md has no Sources/MyApp/main.swift"; exit 1; }
# A path dependency is named after its folder: a link named as the package is.
ln -s "$root" "$work/StatefulControls"
mkdir -p "$work/install-client/Sources/MyApp"
by_path='.package(path: "../StatefulControls")'
echo "${manifest/"$url"/"$by_path"}" >"$work/install-client/Package.swift"
echo "$main" >"$work/install-client/Sources/MyApp/main.swift"
"$swift" build --package-path "$work/install-client" -q
output="$("$work/install-client/.build/debug/MyApp")"
echo "  $output"
[ "$output" = "Switch: off, on, disabled, off" ] || { echo "docs/install.md's client printed something else"; exit 1; }
echo "plug-in loaded with dlopen by a C program: build and run"
client plugin-client StatefulControls dynamic
cat > "$work/plugin-client/Sources/plugin-client/Plugin.swift" <<'SWIFT'
import StatefulControls

final class Lamp { var brightness = 0 }

/// Binds a value on a plain object and applies two states; with `overlapping` 1, applies while
/// the program modifies the bound property, which stops it. Returns 0 when the values are right.
@_cdecl("plugin_run")
public func pluginRun(_ overlapping: Int32) -> Int32 {
    MainActor.assumeIsolated {
        let lamp = Lamp()
        let control = Control()
        control.setValue(100, for: \.brightness, of: lamp, when: .containing(.selected))
        if overlapping == 1 {
            withUnsafeMutablePointer(to: &lamp.brightness) { _ in control.isSelected = true }
            return 1
        }
        control.isSelected = true
        let on = lamp.brightness
        control.isSelected = false
        print("the \(PropertyAccess.current) property access, brightness \(on) then \(lamp.brightness)")
        return on == 100 && lamp.brightness == 0 ? 0 : 1
    }
}
SWIFT
cat > "$work/host.c" <<'C'
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    if (argc != 3) return 2;
    void *plugin = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!plugin) { fprintf(stderr, "dlopen: %s\n", dlerror()); return 1; }
    int (*run)(int) = (int (*)(int))dlsym(plugin, "plugin_run");
    if (!run) { fprintf(stderr, "dlsym: %s\n", dlerror()); return 1; }
    return run(atoi(argv[2]));
}
C
"$swift" build --package-path "$work/plugin-client" -q
"${CLANG:-clang}" "$work/host.c" -o "$work/host"
plugin="$work/plugin-client/.build/debug/libplugin-client.so"
output="$("$work/host" "$plugin" 0)"
echo "  $output"
# The direct access where it is compiled (x86_64 Linux with glibc), the portable one elsewhere.
expected="the direct property access, brightness 100 then 0"
{ [ "$(uname -m)" = x86_64 ] && getconf GNU_LIBC_VERSION >/dev/null 2>&1; } || expected="${expected/direct/portable}"
[ "$output" = "$expected" ] || { echo "the plug-in printed something else"; exit 1; }
if log="$("$work/host" "$plugin" 1 2>&1)"; then echo "an overlapping write did not stop the plug-in"; exit 1; fi
grep -q "Simultaneous accesses" <<<"$log" || { echo "$log" | tail -5; echo "the plug-in stopped without Swift's message"; exit 1; }
echo "  an overlapping write: Simultaneous accesses"
echo "clients: ok"
