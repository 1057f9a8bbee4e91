#include "view/imgui_scene.h"

#include <algorithm>
#include <cmath>

namespace stagecraft::view {

ImU32 toImColor(const Color& c) {
    return IM_COL32(c.r, c.g, c.b, c.a);
}

void drawSceneText(ImDrawList* list, const SceneText& t, const SceneTransform& tf, ImFont* font) {
    if (t.text.empty() || t.color.a == 0) return;
    const float size = std::max(6.0f, float(t.size) * tf.scale);
    const char* begin = t.text.data();
    const char* end = begin + t.text.size();
    ImVec2 p = tf.toScreen(t.x, t.y);
    // The Scene gives the baseline; ImGui places a text by its top.
    p.y -= font->Ascent * size / font->FontSize;
    if (t.anchor != TextAnchor::Start) {
        const float w = font->CalcTextSizeA(size, FLT_MAX, 0.0f, begin, end).x;
        p.x -= t.anchor == TextAnchor::Middle ? w * 0.5f : w;
    }
    p.x = std::round(p.x);
    p.y = std::round(p.y);
    const ImU32 col = toImColor(t.color);
    list->AddText(font, size, p, col, begin, end);
    if (t.bold) list->AddText(font, size, ImVec2(p.x + 0.6f, p.y), col, begin, end);
}

void drawScene(ImDrawList* list, const Scene& scene, const SceneTransform& tf, ImFont* font,
               const ImVec4& clip) {
    for (const SceneRect& r : scene.rects) {
        ImVec2 a = tf.toScreen(r.x, r.y), b = tf.toScreen(r.x + r.w, r.y + r.h);
        if (b.x < clip.x || a.x > clip.z || b.y < clip.y || a.y > clip.w) continue;
        // Whole pixels, at least one wide: narrow bars never vanish between pixels.
        a.x = std::round(a.x);
        a.y = std::round(a.y);
        b.x = std::max(std::round(b.x), a.x + 1.0f);
        b.y = std::max(std::round(b.y), a.y + 1.0f);
        if (r.fill.a != 0) list->AddRectFilled(a, b, toImColor(r.fill));
        if (r.stroke.a != 0 && r.strokeWidth > 0 && b.x - a.x >= 3.0f)
            list->AddRect(a, b, toImColor(r.stroke), 0.0f, 0,
                          std::max(1.0f, float(r.strokeWidth) * tf.scale));
    }
    for (const SceneLine& l : scene.lines) {
        const ImVec2 a = tf.toScreen(l.x1, l.y1), b = tf.toScreen(l.x2, l.y2);
        if (std::max(a.x, b.x) < clip.x || std::min(a.x, b.x) > clip.z || std::max(a.y, b.y) < clip.y ||
            std::min(a.y, b.y) > clip.w)
            continue;
        const float w = std::max(1.0f, float(l.width) * tf.scale);
        if (!l.dashed) {
            list->AddLine(a, b, toImColor(l.color), w);
            continue;
        }
        const float len = std::hypot(b.x - a.x, b.y - a.y);
        const float dash = 4.0f * tf.scale;
        for (float s = 0; s < len; s += 2 * dash) {
            const float e = std::min(len, s + dash);
            list->AddLine(ImVec2(a.x + (b.x - a.x) * s / len, a.y + (b.y - a.y) * s / len),
                          ImVec2(a.x + (b.x - a.x) * e / len, a.y + (b.y - a.y) * e / len),
                          toImColor(l.color), w);
        }
    }
    for (const SceneText& t : scene.texts) {
        const ImVec2 p = tf.toScreen(t.x, t.y);
        if (p.y < clip.y - 40 || p.y > clip.w + 40) continue;
        drawSceneText(list, t, tf, font);
    }
}

} // namespace stagecraft::view
