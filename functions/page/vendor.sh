#!/usr/bin/env bash
# Re-vendors the page's front-end dependencies: pinned npm packages, only the files the page loads, with
# their licences. Run by hand when a version changes (needs npm); the result is committed, so neither
# `make` nor a user ever runs a build step. Then update static/vendor/README.md and the VERSIONS below.
set -euo pipefail
cd "$(dirname "$0")/static/vendor"

CM_CHESSBOARD=8.15.1   # MIT
CHESS_JS=1.4.0         # BSD-2-Clause

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "cm-chessboard@$CM_CHESSBOARD" "chess.js@$CHESS_JS" >/dev/null \
    && mkdir cm chess && tar -xzf cm-chessboard-*.tgz -C cm && tar -xzf chess.js-*.tgz -C chess)

rm -rf cm-chessboard chess.js
cm="$work/cm/package"
for f in LICENSE src/Chessboard.js src/model/ChessboardState.js src/model/Position.js src/model/Extension.js \
         src/view/ChessboardView.js src/view/VisualMoveInput.js src/view/PositionAnimationsQueue.js \
         src/lib/Utils.js src/lib/Svg.js src/extensions/arrows/Arrows.js src/extensions/markers/Markers.js \
         src/extensions/promotion-dialog/PromotionDialog.js assets/chessboard.css assets/pieces/standard.svg \
         assets/extensions/arrows/arrows.css assets/extensions/arrows/arrows.svg \
         assets/extensions/markers/markers.css assets/extensions/markers/markers.svg \
         assets/extensions/promotion-dialog/promotion-dialog.css; do
    install -D -m 644 "$cm/$f" "cm-chessboard/$f"
done
# The published CSS ends with a source-map comment for a file not vendored: the browser would ask for it.
sed -i '/sourceMappingURL/d' cm-chessboard/assets/*.css cm-chessboard/assets/extensions/*/*.css

chess="$work/chess/package"
install -D -m 644 "$chess/LICENSE" chess.js/LICENSE
install -D -m 644 "$chess/dist/esm/chess.js" chess.js/chess.js
sed -i '/sourceMappingURL/d' chess.js/chess.js
echo "vendored cm-chessboard $CM_CHESSBOARD and chess.js $CHESS_JS into $(pwd)"
