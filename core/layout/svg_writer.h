#pragma once
// Scene -> standalone SVG 1.1 (sizes in pt, so it prints at the size the layout chose). Op and
// comm rects carry their event index and kind as attributes and a <title> tooltip, so a browser
// shows what each bar is and scripts can find them.

#include "layout/scene.h"

#include <string>
#include <string_view>

namespace stagecraft {

std::string sceneToSvg(const Scene& scene);

/// `text` with &, <, >, " and ' replaced by entities and control characters other than tab,
/// newline and carriage return (not allowed in XML 1.0) dropped, and invalid UTF-8 bytes
/// replaced by U+FFFD.
std::string xmlEscape(std::string_view text);

} // namespace stagecraft
