#!/usr/bin/env bash
# The DocC documentation, one archive per module with a catalog (Sources/<Module>/<Name>.docc),
# into .build/docs/<module> (make docs); fails on any DocC warning.
#
# Each archive is converted from its module's symbol graphs alone: DocC documents one module per
# archive, and given two modules' graphs it picks one at random. StatefulControls' graph holds
# the symbols it re-exports from StatefulEngine, so its catalog links to them directly. The
# graphs come from a build of their own (.build/docs-build): -emit-symbol-graph would make the
# default build recompile everything, and an incremental build would keep a stale copy of the
# re-exported symbols' docs (a doc comment edit in the engine does not recompile the controls).
#
# usage: SWIFT=... DOCC=... scripts/docs.sh
set -euo pipefail
swift=${SWIFT:-swift} docc=${DOCC:-docc}
build=.build/docs-build graphs=.build/docs-build/symbol-graphs out=.build/docs
catalogs=$(ls -d Sources/*/*.docc | sort)

rm -rf "$build"
for catalog in $catalogs; do
  module=$(basename "$(dirname "$catalog")")
  echo "$swift build --target $module (symbol graphs into $graphs)"
  "$swift" build --scratch-path "$build" --target "$module" -Xswiftc -emit-symbol-graph \
    -Xswiftc -emit-symbol-graph-dir -Xswiftc "$PWD/$graphs"
done

rm -rf "$out" && mkdir -p "$out"
status=0
for catalog in $catalogs; do
  module=$(basename "$(dirname "$catalog")")
  own="$build/graphs-of/$module"
  rm -rf "$own" && mkdir -p "$own"
  cp "$graphs/$module.symbols.json" "$own/"
  cp "$graphs/$module"@*.symbols.json "$own/" 2>/dev/null || true
  echo "docc convert $catalog -> $out/$module"
  "$docc" convert "$catalog" --additional-symbol-graph-dir "$own" \
    --fallback-display-name "$module" --fallback-bundle-identifier "org.statefulcontrols.$module" \
    --hosting-base-path "$module" --output-path "$out/$module" --warnings-as-errors || status=1
done
[ $status = 0 ] || { echo "make docs: DocC reported problems (above)"; exit 1; }
echo "Serve with: python3 -m http.server -d $out, then open"
for catalog in $catalogs; do
  module=$(basename "$(dirname "$catalog")")
  echo "  http://localhost:8000/$module/documentation/$(echo "$module" | tr A-Z a-z)"
done
