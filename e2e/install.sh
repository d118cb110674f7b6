#!/bin/sh
# Installs the pinned agent CLIs of e2e/versions.txt from the npm registry
# into CACHE/<name> (default .cache/e2e), each only when the installed
# version differs. Fails with a clear message when npm or the registry is
# unreachable: the suite never skips a host.
set -eu
cd "$(dirname "$0")/.."
cache="${1:-.cache/e2e}"
if ! command -v npm >/dev/null 2>&1; then
	echo "e2e: npm is not installed; the suite needs Node.js and npm to install the hosts" >&2
	exit 1
fi
grep -v '^#' e2e/versions.txt | while read -r name pkg version; do
	[ -n "$name" ] || continue
	dir="$cache/$name"
	have="$(node -p "require('./$dir/node_modules/$pkg/package.json').version" 2>/dev/null || true)"
	if [ "$have" = "$version" ]; then
		echo "e2e: $pkg@$version already installed in $dir"
		continue
	fi
	echo "e2e: installing $pkg@$version into $dir"
	rm -rf "$dir"
	mkdir -p "$dir"
	# Install scripts are not run (Gemini's node-pty would build native
	# code it does not need headless), except Claude Code's own, which
	# puts its native binary in place of bin/claude.exe.
	if ! (cd "$dir" && npm install --prefix . --no-audit --no-fund --ignore-scripts --loglevel=error "$pkg@$version" >install.log 2>&1); then
		cat "$dir/install.log" >&2
		echo "e2e: FAILED to install $pkg@$version from the npm registry (is it reachable?); the suite cannot run without it" >&2
		exit 1
	fi
	if [ -f "$dir/node_modules/$pkg/install.cjs" ]; then
		(cd "$dir/node_modules/$pkg" && node install.cjs) >>"$dir/install.log" 2>&1 || {
			cat "$dir/install.log" >&2
			echo "e2e: FAILED to set up $pkg@$version (its install.cjs)" >&2
			exit 1
		}
	fi
	if ! out="$("$dir/node_modules/.bin/$name" --version 2>&1)"; then
		echo "$out" >&2
		echo "e2e: $name $version was installed but does not run" >&2
		exit 1
	fi
	echo "e2e: $name --version: $out"
done
# The OpenAI Agents SDK example (examples/serve/typescript): its
# package.json and package-lock.json pin @openai/agents, the TypeScript
# compiler and Node's types. Installed with `npm ci` into CACHE/agents-sdk
# when the lock file changed, then the example is compiled there.
ts=examples/serve/typescript
dir="$cache/agents-sdk"
if [ ! -d "$dir/node_modules" ] || ! cmp -s "$ts/package-lock.json" "$dir/package-lock.json"; then
	echo "e2e: installing $ts's dependencies (@openai/agents) into $dir"
	rm -rf "$dir"
	mkdir -p "$dir"
	cp "$ts/package.json" "$ts/package-lock.json" "$dir/"
	if ! (cd "$dir" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error >install.log 2>&1); then
		cat "$dir/install.log" >&2
		echo "e2e: FAILED to install $ts's dependencies from the npm registry (is it reachable?); the suite cannot run without them" >&2
		exit 1
	fi
else
	echo "e2e: $ts's dependencies already installed in $dir"
fi
rm -rf "$dir/dist"
cp "$ts"/*.ts "$ts/tsconfig.json" "$dir/"
if ! (cd "$dir" && ./node_modules/.bin/tsc -p tsconfig.json); then
	echo "e2e: FAILED to compile $ts" >&2
	exit 1
fi
echo "e2e: compiled $ts into $dir/dist"
