#include "error.h"
#include "raster_export.h"

namespace stagecraft::cli {

bool rasterExportAvailable() {
    return false;
}

void writeRasterChart(const Scene&, const std::string& path, double) {
    throw ValidationError("cli.format", "--output",
                          "'" + path +
                              "': PDF and PNG are drawn by the desktop application's Qt renderer, which this "
                              "build does not include (Qt 6 was not found); write .svg or .tex instead, or "
                              "install the Qt 6 development packages and rebuild");
}

} // namespace stagecraft::cli
