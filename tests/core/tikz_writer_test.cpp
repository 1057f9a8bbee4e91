// The TikZ writer: exact output of a small scene (y flipped, colours defined), LaTeX escaping,
// structural checks on a real chart (balanced braces, one picture, every colour defined, plain
// ASCII), and a pdflatex run when pdflatex is installed.
#include "file_io.h"
#include "generators/registry.h"
#include "layout/gantt_layout.h"
#include "layout/tikz_writer.h"
#include "sim/simulator.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <set>
#include <unistd.h>

using namespace stagecraft;

namespace {

int count(const std::string& text, const std::string& what) {
    int n = 0;
    for (auto pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + what.size())) ++n;
    return n;
}

/// Braces balance when escaped ones (\{ \}) are skipped; never closes below zero.
bool bracesBalanced(const std::string& tex) {
    int depth = 0;
    for (std::size_t i = 0; i < tex.size(); ++i) {
        if (tex[i] == '\\') {
            ++i; // the escaped character, whatever it is
            continue;
        }
        if (tex[i] == '%') { // comment to the end of the line
            i = tex.find('\n', i);
            if (i == std::string::npos) break;
            continue;
        }
        if (tex[i] == '{') ++depth;
        if (tex[i] == '}' && --depth < 0) return false;
    }
    return depth == 0;
}

Scene chartScene() {
    static const Timeline t = [] {
        const Schedule s = generateSchedule("bitpipe", {4, 8, 1});
        return simulate(s, fullStageCosts(s, 1, 1, 1, 0.2, 0.5));
    }();
    const std::vector<ChartPanel> panels{{&t, "BitPipe_v2 100% & more #1 {x} ~y^ \\z $", ""}};
    ChartOptions options;
    options.showComm = true;
    return layoutGantt(panels, options);
}

} // namespace

TEST_CASE("TikZ of a small scene, line by line", "[layout]") {
    Scene scene;
    scene.width = 100;
    scene.height = 50;
    scene.rects.push_back({0, 0, 100, 50, {255, 255, 255, 255}, {}, 0, RectRole::Background, -1, -1, {}, {}});
    scene.rects.push_back(
        {10, 10, 20, 5, {0, 114, 178, 255}, {255, 255, 255, 255}, 0.5, RectRole::Op, 4, 0, "F", "0F0"});
    scene.rects.push_back({10, 20, 5, 3, {85, 85, 85, 128}, {}, 0, RectRole::Comm, 7, 0, "activation", {}});
    scene.rects.push_back({0, 0, 1, 1, {0, 0, 0, 0}, {}, 0, RectRole::Panel, -1, -1, {}, {}}); // invisible
    // An outline alone (an F&B slot's frame, a measured op): a \draw, which does not fill; a
    // \filldraw without a fill would fill it with black.
    scene.rects.push_back(
        {40, 10, 20, 5, {0, 0, 0, 0}, {26, 26, 26, 255}, 0.9, RectRole::Op, 9, 0, "overlap", {}});
    scene.lines.push_back({10, 30, 90, 30, {77, 77, 77, 255}, 0.5, true});
    scene.texts.push_back({20, 13, "F0_1", 6.5, {255, 255, 255, 255}, TextAnchor::Middle, false});
    scene.texts.push_back({2, 40, "D0", 7, {26, 26, 26, 255}, TextAnchor::End, true});
    CHECK(sceneToTikz(scene, false) ==
          "% Stagecraft chart: 100 x 50 pt\n"
          "\\begin{tikzpicture}[x=1pt,y=1pt,font=\\sffamily]\n"
          "\\definecolor{sc0}{RGB}{255,255,255}\n"
          "\\definecolor{sc1}{RGB}{0,114,178}\n"
          "\\definecolor{sc2}{RGB}{85,85,85}\n"
          "\\definecolor{sc3}{RGB}{26,26,26}\n"
          "\\definecolor{sc4}{RGB}{77,77,77}\n"
          "\\path[use as bounding box] (0,0) rectangle (100,50);\n"
          "\\fill[fill=sc0] (0,0) rectangle (100,50);\n"
          "\\filldraw[fill=sc1,draw=sc0,line width=0.5pt] (10,35) rectangle (30,40); % F event 4\n"
          "\\fill[fill=sc2,fill opacity=0.502] (10,27) rectangle (15,30); % activation event 7\n"
          "\\draw[draw=sc3,line width=0.9pt] (40,35) rectangle (60,40); % overlap event 9\n"
          "\\draw[sc4,line width=0.5pt,dashed] (10,20) -- (90,20);\n"
          "\\node[anchor=base,inner sep=0pt,text=sc0,font=\\sffamily\\fontsize{6.5}{7.8}\\selectfont] at "
          "(20,37) "
          "{F0\\_1};\n"
          "\\node[anchor=base east,inner "
          "sep=0pt,text=sc3,font=\\sffamily\\fontsize{7}{8.4}\\selectfont\\bfseries] "
          "at (2,10) {D0};\n"
          "\\end{tikzpicture}\n");
    const std::string doc = sceneToTikz(scene, true);
    CHECK(doc.rfind("\\documentclass{article}\n\\usepackage{tikz}\n\\usepackage[paperwidth=", 0) == 0);
    CHECK(doc.find("\\pagestyle{empty}\n\\begin{document}\n\\noindent\n% Stagecraft chart") !=
          std::string::npos);
    CHECK(doc.size() - doc.rfind("\\end{tikzpicture}\n\\end{document}\n") ==
          std::string("\\end{tikzpicture}\n\\end{document}\n").size());
}

TEST_CASE("LaTeX escaping of specials and symbols", "[layout]") {
    CHECK(latexEscape("a_b%c&d#e$f{g}h~i^j\\k") ==
          "a\\_b\\%c\\&d\\#e\\$f\\{g\\}h\\textasciitilde{}i\\textasciicircum{}j\\textbackslash{}k");
    CHECK(latexEscape("<a|b>") == "\\textless{}a\\textbar{}b\\textgreater{}");
    CHECK(latexEscape("1f1b--x") == "1f1b-{}-x");
    CHECK(latexEscape("12 \u00B5s \u00B7 3\u20134 \u2192 F3\u2032") ==
          "12 \\ensuremath{\\mu}s \\textperiodcentered{} 3--4 \\ensuremath{\\rightarrow} F3\\ensuremath{'}");
    CHECK(latexEscape("line\nbreak\x01") == "line break");
    CHECK(latexEscape("caf\u00E9 \xFF") == "caf? ?");
}

TEST_CASE("A chart's TikZ is structurally sound", "[layout]") {
    const Scene scene = chartScene();
    for (bool standalone : {true, false}) {
        INFO(standalone);
        const std::string tex = sceneToTikz(scene, standalone);
        CHECK(count(tex, "\\begin{tikzpicture}") == 1);
        CHECK(count(tex, "\\end{tikzpicture}") == 1);
        CHECK(count(tex, "\\documentclass") == (standalone ? 1 : 0));
        CHECK(count(tex, "\\begin{document}") == (standalone ? 1 : 0));
        CHECK(bracesBalanced(tex));
        CHECK(std::all_of(tex.begin(), tex.end(), [](char c) { return c == '\n' || (c >= 32 && c < 127); }));

        // Every colour used is defined, before the first use.
        std::set<std::string> defined, used;
        const std::regex definition(R"(\\definecolor\{(sc\d+)\}\{RGB\}\{\d+,\d+,\d+\})");
        for (auto it = std::sregex_iterator(tex.begin(), tex.end(), definition); it != std::sregex_iterator();
             ++it)
            defined.insert((*it)[1]);
        const std::regex use(R"((?:fill=|draw=|text=|\\draw\[)(sc\d+))");
        for (auto it = std::sregex_iterator(tex.begin(), tex.end(), use); it != std::sregex_iterator();
             ++it) {
            used.insert((*it)[1]);
            CHECK(tex.rfind("\\definecolor{" + (*it)[1].str() + "}", std::size_t(it->position())) !=
                  std::string::npos);
        }
        CHECK(!used.empty());
        CHECK(used == defined);
    }
    // One rect command per op rect and per visible decoration rect; specials of the title escaped.
    const std::string tex = sceneToTikz(scene, false);
    const auto ops = std::count_if(scene.rects.begin(), scene.rects.end(),
                                   [](const SceneRect& r) { return r.role == RectRole::Op; });
    CHECK(count(tex, "% F event ") + count(tex, "% B event ") == int(ops));
    CHECK(tex.find("{BitPipe\\_v2 100\\% \\& more \\#1 \\{x\\} \\textasciitilde{}y\\textasciicircum{} "
                   "\\textbackslash{}z \\$}") != std::string::npos);
}

TEST_CASE("pdflatex compiles the standalone TikZ chart", "[layout]") {
    if (std::system("command -v pdflatex > /dev/null 2>&1") != 0) {
        WARN("pdflatex is not on PATH: the TikZ compile check is skipped");
        return;
    }
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("stagecraft_tikz_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    writeFileAtomically(dir / "chart.tex", sceneToTikz(chartScene(), true));
    const std::string command =
        "cd '" + dir.string() +
        "' && pdflatex -interaction=nonstopmode -halt-on-error chart.tex > chart.out 2>&1";
    const int rc = std::system(command.c_str());
    INFO(readTextFile(dir / "chart.out"));
    CHECK(rc == 0);
    CHECK(fs::exists(dir / "chart.pdf"));
    // The page is sized to the chart: everything lands on one page.
    if (std::system("command -v pdfinfo > /dev/null 2>&1") == 0)
        CHECK(std::system(
                  ("pdfinfo '" + (dir / "chart.pdf").string() + "' | grep -q '^Pages: *1$'").c_str()) == 0);
    fs::remove_all(dir);
}
