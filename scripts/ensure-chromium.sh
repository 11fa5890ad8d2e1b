#!/usr/bin/env bash
# Find a Chromium for Playwright, installing Debian's package when we are root.
# `playwright install` cannot download browsers on these machines.
set -euo pipefail

find_chromium() {
    for candidate in "${WEBCHAOS_CHROMIUM:-}" /usr/lib/chromium/chromium /usr/lib/chromium-browser/chromium-browser \
                     /usr/bin/chromium /usr/bin/chromium-browser /usr/bin/google-chrome; do
        if [ -n "$candidate" ] && [ -x "$candidate" ]; then
            echo "$candidate"
            return 0
        fi
    done
    return 1
}

# Selenium's examples and tests drive Chromium through Debian's chromedriver (same version as chromium).
ensure_chromedriver() {
    if command -v chromedriver >/dev/null 2>&1 || [ -x "${CHROMEDRIVER:-}" ]; then
        return 0
    fi
    if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
        echo "chromedriver: not found; installing Debian's chromium-driver package"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq chromium-driver >/dev/null
        command -v chromedriver >/dev/null 2>&1 || { echo "chromedriver: apt-get ran but none was found" >&2; exit 1; }
        return 0
    fi
    echo "chromedriver: not found (sudo apt-get install -y chromium-driver, or set CHROMEDRIVER=/path)" >&2
    exit 1
}

if path=$(find_chromium); then
    echo "chromium: $path"
    ensure_chromedriver
    exit 0
fi

if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "chromium: not found; installing Debian's chromium package"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq chromium chromium-driver >/dev/null
    path=$(find_chromium) || { echo "chromium: apt-get ran but no chromium binary was found" >&2; exit 1; }
    echo "chromium: $path"
    ensure_chromedriver
    exit 0
fi

cat >&2 <<'MSG'
webchaos needs a Chromium binary and could not find one.
  Debian/Ubuntu:  sudo apt-get install -y chromium
  elsewhere:      install Chromium or Chrome, then export WEBCHAOS_CHROMIUM=/path/to/chromium
(`playwright install` is not required; webchaos drives the system Chromium.)
MSG
exit 1
