#!/bin/bash
# The README's screenshot: snapshots/readme-screenshot.sh SNAPSHOT.svg snapshots/readme-screenshot.png
# the SVG rendered by headless Chromium (fonts with fallback)
svg="$1"; out="$2"
w=$(grep -o 'viewBox="0 0 [0-9.]* [0-9.]*"' "$svg" | head -1 | awk '{print int($3+0.99)}')
h=$(grep -o 'viewBox="0 0 [0-9.]* [0-9.]*"' "$svg" | head -1 | awk '{gsub(/"/,"",$4); print int($4+0.99)}')
cp "$svg" ${TMPDIR:-/tmp}/scriptorium-shot.svg
cat > ${TMPDIR:-/tmp}/scriptorium-shot.html <<HTML
<html><body style="margin:0;background:#000"><img src="file://${TMPDIR:-/tmp}/scriptorium-shot.svg" style="display:block;width:${w}px;height:${h}px"></body></html>
HTML
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --force-device-scale-factor=1.5 --window-size=${w},${h} --screenshot="$out" file://${TMPDIR:-/tmp}/scriptorium-shot.html 2>/dev/null
