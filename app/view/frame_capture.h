#pragma once
// The window's back buffer as a PNG (--screenshot): glReadPixels before the swap, stb's PNG
// encoder, core's atomic file write.

#include <string>

namespace stagecraft::view {

/// Reads the current framebuffer (`width` x `height` pixels) and writes it to `path`. Throws
/// stagecraft::Error ("io.write") when the image cannot be encoded or written.
void saveFramebufferPng(const std::string& path, int width, int height);

} // namespace stagecraft::view
