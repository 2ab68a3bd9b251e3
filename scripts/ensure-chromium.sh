#!/usr/bin/env bash
# Make sure Debian's Chromium is at /usr/bin/chromium for the browser tests (Playwright drives it
# with executable_path; Playwright's own browser download is never used). Installs the package
# when missing and we are root. Never fails the build: the browser tests skip with a clear reason
# when Chromium is still absent.
set -u
if [ ! -x /usr/bin/chromium ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "ensure-chromium: installing chromium from Debian's packages"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >/dev/null 2>&1
fi
if [ -x /usr/bin/chromium ]; then
  echo "ensure-chromium: $(/usr/bin/chromium --version 2>/dev/null | head -1)"
else
  echo "ensure-chromium: Chromium unavailable; the browser tests will be skipped"
fi
exit 0
