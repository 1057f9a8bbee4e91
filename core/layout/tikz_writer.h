#pragma once
// Scene -> TikZ for LaTeX documents: coordinates in pt with y flipped (TikZ's y points up),
// one \definecolor per colour used, text escaped for LaTeX. The output is plain ASCII, so it
// needs no inputenc setup; the \input form needs \usepackage{tikz} in the preamble.

#include "layout/scene.h"

#include <string>
#include <string_view>

namespace stagecraft {

/// standalone = true: a complete document (\documentclass[tikz]{standalone}) that pdflatex
/// compiles to a PDF of exactly the scene's size. false: only the tikzpicture, for \input.
std::string sceneToTikz(const Scene& scene, bool standalone);

/// `text` for a LaTeX text-mode argument: the specials _ % & # $ { } ~ ^ \ escaped, < > | as
/// text commands, "--" kept apart, common symbols (µ · – — → ′ × ≤ ≥ …) as LaTeX commands,
/// control characters dropped, newlines as blanks and any other non-ASCII character as '?'.
std::string latexEscape(std::string_view text);

} // namespace stagecraft
