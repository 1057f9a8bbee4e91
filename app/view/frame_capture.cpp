#include "view/frame_capture.h"

#include "error.h"
#include "file_io.h"

#include <GL/gl.h>
#include <stb_image_write.h>
#include <vector>

namespace stagecraft::view {

void saveFramebufferPng(const std::string& path, int width, int height) {
    if (width <= 0 || height <= 0)
        throw Error("io.write", "cannot write " + path + ": the window has no pixels");
    std::vector<unsigned char> pixels(std::size_t(width) * std::size_t(height) * 4);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadBuffer(GL_BACK);
    glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
    // Opaque: the PNG shows what the screen shows whatever the framebuffer's alpha holds.
    for (std::size_t i = 3; i < pixels.size(); i += 4) pixels[i] = 255;
    std::string png;
    stbi_flip_vertically_on_write(1); // OpenGL's rows go bottom up
    const int ok = stbi_write_png_to_func(
        [](void* ctx, void* data, int size) {
            static_cast<std::string*>(ctx)->append(static_cast<char*>(data), std::size_t(size));
        },
        &png, width, height, 4, pixels.data(), width * 4);
    if (!ok) throw Error("io.write", "cannot write " + path + ": PNG encoding failed");
    writeFileAtomically(path, png);
}

} // namespace stagecraft::view
