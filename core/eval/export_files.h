#pragma once
// Writes what an ExportRequest asks for, whichever program asked: the extension of its output
// picks a torch schedule CSV (.csv), metrics (.metrics.json, .metrics.csv), a trace (.json,
// .pftrace, .et: trace_export.h) or a chart (.svg, .tex, .tikz by core's writers; .pdf and .png by
// the front end's renderer). `stagecraft-cli export` and `stagecraft --export` both call
// writeExport, so the same options give the same files, byte for byte.

#include "eval/export_request.h"
#include "layout/scene.h"

#include <filesystem>
#include <string>
#include <vector>

namespace stagecraft {

/// Writes a chart as PDF or PNG (at `dpi`) atomically: the Qt renderer of the front end. Core has
/// no raster renderer, so a program without one passes nullptr and such charts are refused.
using RasterChartWriter = void (*)(const Scene& scene, const std::string& path, double dpi);

/// Writes `scene` to `path` in the chart format its extension names: SVG and TikZ by core's
/// writers, PDF and PNG by `raster`. Throws ValidationError "cli.format" for a file that is not a
/// chart, "export.format" for PDF or PNG without a raster writer.
void writeChartScene(const Scene& scene, const std::string& path, double dpi, RasterChartWriter raster);

/// Evaluates the request and writes its output; returns the files written (one, or one per rank
/// for Chakra). Throws stagecraft::Error: an unknown extension ("cli.format"), a refused schedule
/// (its own id), a trace that does not fit its schedule ("overlay.mismatch"), an unwritable file.
std::vector<std::filesystem::path> writeExport(const ExportRequest& request, RasterChartWriter raster);

} // namespace stagecraft
