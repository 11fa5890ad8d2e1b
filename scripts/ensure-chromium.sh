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

# Headless episodes run in Debian's chromium-headless-shell when it is there (harness/config.py says why):
# installed when we are root; without it they run in chromium itself, only slower.
ensure_headless_shell() {
    if [ -n "${WEBCHAOS_CHROMIUM:-}" ] || command -v chromium-headless-shell >/dev/null 2>&1 \
            || [ -x /usr/lib/chromium/chromium-headless-shell ]; then
        return 0
    fi
    if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
        echo "chromium-headless-shell: not found; installing Debian's package"
        export DEBIAN_FRONTEND=noninteractive
        apt-get install -y -qq chromium-headless-shell >/dev/null 2>&1 \
            || { apt-get update -qq && apt-get install -y -qq chromium-headless-shell >/dev/null; } \
            || echo "chromium-headless-shell: could not be installed; headless episodes use chromium"
        return 0
    fi
    echo "chromium-headless-shell: not found (sudo apt-get install -y chromium-headless-shell runs headless" \
         "episodes at about half the CPU); using chromium"
}

if path=$(find_chromium); then
    echo "chromium: $path"
    ensure_chromedriver
    ensure_headless_shell
    exit 0
fi

if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "chromium: not found; installing Debian's chromium package"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq chromium chromium-driver chromium-headless-shell >/dev/null
    path=$(find_chromium) || { echo "chromium: apt-get ran but no chromium binary was found" >&2; exit 1; }
    echo "chromium: $path"
    ensure_chromedriver
    ensure_headless_shell
    exit 0
fi

cat >&2 <<'MSG'
webchaos needs a Chromium binary and could not find one.
  Debian/Ubuntu:  sudo apt-get install -y chromium chromium-headless-shell
  elsewhere:      install Chromium or Chrome, then export WEBCHAOS_CHROMIUM=/path/to/chromium
(`playwright install` is not required; webchaos drives the system Chromium.)
MSG
exit 1
